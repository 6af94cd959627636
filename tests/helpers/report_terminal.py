#!/usr/bin/env python3
"""A terminal whose reports are late: report_terminal.py [--no-da] [--tmux] CMD...

Runs `sh -c CMD` on a pty it holds, as a terminal emulator would, and plays
the terminal for it: once the output has turned focus reports on
(CSI ? 1004 h) and then off again (the reset jail writes at its end), it
types the focus report it "sent before it read the reset" (ESC [ I) into the
pty 0.3 s later, as a report in flight would arrive; it answers DA1 (CSI c) with
ESC [ ? 62 c unless --no-da.  CMD should end by reading what is pending on
its terminal (the next program after jail): whatever it prints is what the
user's shell would have read as typed.  With --tmux it also types a focus
report as soon as focus reports are turned on, as tmux does.  All output goes
to stdout."""
import os
import pty
import select
import sys
import time

def main():
    args = sys.argv[1:]
    answer_da = True
    focus_at_once = False
    while args and args[0] in ("--no-da", "--tmux"):
        answer_da = answer_da and args[0] != "--no-da"
        focus_at_once = focus_at_once or args[0] == "--tmux"
        args = args[1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("sh", ["sh", "-c", " ".join(args)])
    seen = b""
    focus_on = reported = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        seen += data
        if not focus_on and b"\x1b[?1004h" in seen:
            focus_on = True
            if focus_at_once:
                os.write(fd, b"\x1b[I")
            seen = seen[seen.index(b"\x1b[?1004h") + 8:]
        if focus_on and not reported and b"\x1b[?1004l" in seen:
            reported = True  # the report the terminal sent before the reset,
            time.sleep(0.3)  # slow to arrive (a busy terminal, ssh)
            os.write(fd, b"\x1b[I")
            seen = seen[seen.index(b"\x1b[?1004l") + 8:]
        while answer_da and b"\x1b[c" in seen:
            os.write(fd, b"\x1b[?62c")
            seen = seen[seen.index(b"\x1b[c") + 3:]
        seen = seen[-16:]
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))

main()
