# idcalls.py — the id calls a test suite makes, each printed as "name errno"
# (0 on success), to compare the jail with the host for the same user.
import errno, os, sys

path = sys.argv[1]
uid, gid = os.getuid(), os.getgid()
other_u, other_g = uid + 1, gid + 1
calls = [
    ("chown_own", lambda: os.chown(path, uid, gid)),
    ("chown_unchanged", lambda: os.chown(path, -1, -1)),
    ("chown_other_uid", lambda: os.chown(path, other_u, -1)),
    ("chown_other_gid", lambda: os.chown(path, -1, other_g)),
    ("chown_root", lambda: os.chown(path, 0, 0)),
    ("lchown_other", lambda: os.lchown(path, other_u, gid)),
    ("fchown_other", lambda: os.fchown(os.open(path, os.O_RDONLY), -1, other_g)),
    ("setuid_own", lambda: os.setuid(uid)),
    ("setuid_other", lambda: os.setuid(other_u)),
    ("setuid_root", lambda: os.setuid(0)),
    ("setgid_other", lambda: os.setgid(other_g)),
    ("setreuid_other", lambda: os.setreuid(-1, other_u)),
    ("setregid_own", lambda: os.setregid(gid, -1)),
    ("setresuid_other", lambda: os.setresuid(other_u, -1, -1)),
    ("setresgid_other", lambda: os.setresgid(-1, -1, other_g)),
    ("setgroups", lambda: os.setgroups([])),
    ("setgroups_own", lambda: os.setgroups([gid])),
]
for name, fn in calls:
    try:
        fn()
        print(name, 0)
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
