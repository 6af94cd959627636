# junit_compare.py HOST.xml JAIL.xml — compare two JUnit XML reports of the same
# test run (CPython's `-m test --junit-xml`), test by test.  Prints every test
# whose outcome differs, then one summary line; exits 1 when a test that
# passed on the host did not pass in the jail.
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    out = {}
    for case in ET.parse(path).iter("testcase"):
        if not case.get("name"):
            continue
        name = "%s.%s" % (case.get("classname", ""), case.get("name", ""))
        status = "ok"
        for child in case:
            if child.tag in ("failure", "error"):
                status = child.tag
            elif child.tag == "skipped" and status == "ok":
                status = "skipped"
        out[name] = status
    return out


host, jail = outcomes(sys.argv[1]), outcomes(sys.argv[2])
worse = 0
for name in sorted(set(host) | set(jail)):
    h, j = host.get(name, "missing"), jail.get(name, "missing")
    if h == j:
        continue
    bad = h == "ok" and j != "ok" and j != "skipped"
    worse += bad
    print("%s %s: host %s, jail %s" % ("WORSE" if bad else "differs", name, h, j))
print("compared %d tests: %d passed on the host, %d in the jail; %d worse in the jail"
      % (len(host), sum(s == "ok" for s in host.values()),
         sum(s == "ok" for s in jail.values()), worse))
sys.exit(1 if worse or not host else 0)
