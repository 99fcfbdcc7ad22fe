"""casekit.py: the cases of the test scripts that drive the command line.

A script decorates its test functions with @case (each runs when it is defined, in file order,
and a failed check or a crash fails that case only), checks with check(cond, msg), and ends with
finish(), which prints the line tools/test.sh adds up, "N passed, N failed", and exits 1 when any
case failed.

Every temporary directory a script makes (tempfile.mkdtemp, TemporaryDirectory) goes under one
made for the script and removed when it ends: runs killed on purpose leave their scratch files,
and scripts run again and again would otherwise fill the disk."""
import atexit
import os
import shutil
import signal
import sys
import tempfile

# The commands under test inherit this script's signal actions, and contactsim leaves a stop
# signal that was ignored at its start ignored (nohup's SIGHUP, SIGINT in a shell's background
# job): the cases that stop runs with a signal give them the default actions, whatever started
# the script
for _sig in (signal.SIGINT, signal.SIGHUP):
    if signal.getsignal(_sig) == signal.SIG_IGN:
        signal.signal(_sig, signal.SIG_DFL)



def nohup(own_group=False):
    """A preexec_fn starting a command as nohup does (SIGHUP ignored), in a process group of its
    own when asked (so that a hangup sent to the group reaches its children too)"""
    def start():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        if own_group:
            os.setpgrp()
    return start


_session = tempfile.mkdtemp(prefix="contactsim-tests-")
tempfile.tempdir = _session
atexit.register(shutil.rmtree, _session, True)

results = []  # (case name, exception or None), in the order the cases ran


def nobody_dir(mode):
    """A new directory (with mode) that the user nobody can reach, for the cases that run a
    command as nobody to see what another user meets; None when the script cannot change user
    (it does not run as root). The script's own directory is made searchable by others (not
    readable): under it as it was made (0700), nobody could not reach the scene and every such
    case would end as if the build itself were out of nobody's reach."""
    if os.geteuid() != 0:
        return None
    os.chmod(_session, 0o711)
    d = tempfile.mkdtemp()
    os.chmod(d, mode)
    return d


def nobody_scene(mode, scene):
    """nobody_dir(mode) holding a copy of the scene file at path scene that nobody may read
    (and the scene's owner write): (directory, the copy's path), or (None, None)"""
    d = nobody_dir(mode)
    if d is None:
        return None, None
    copy = os.path.join(d, "scene.json")
    shutil.copy(scene, copy)
    os.chmod(copy, 0o644)
    return d, copy


def as_nobody(args, **kwargs):
    """subprocess.run of args as the user nobody (text, output captured); None when nobody
    cannot run the executable args[0] at all (the build lies where nobody cannot reach it), so
    the case has nothing to check here"""
    import pwd
    import subprocess
    gid = pwd.getpwnam("nobody").pw_gid
    prefix = ["setpriv", "--reuid=nobody", f"--regid={gid}", "--clear-groups"]
    probe = subprocess.run(prefix + [args[0], "--version"], capture_output=True, timeout=60)
    if probe.returncode != 0:
        return None
    return subprocess.run(prefix + list(args), capture_output=True, text=True, timeout=60,
                          **kwargs)


def replay_env():
    """The environment with CONTACTSIM_REPLAY_TEMPLATE naming a minimal page template (the data
    placeholder alone), so that what --replay refuses is checked whether or not this build has
    the replay viewer."""
    path = os.path.join(tempfile.mkdtemp(), "template.html")
    with open(path, "w") as f:
        f.write("<html><script>/*CONTACTSIM_REPLAY_DATA*/</script></html>\n")
    return dict(os.environ, CONTACTSIM_REPLAY_TEMPLATE=path)


def case(fn):
    try:
        fn()
        results.append((fn.__name__, None))
        print(f"ok: {fn.__name__}")
    except Exception as e:  # a failed check or a crash of the test itself
        results.append((fn.__name__, e))
        print(f"FAIL: {fn.__name__}: {e!r}")
    return fn


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def failures():
    """How many cases have failed so far."""
    return sum(1 for _, e in results if e is not None)


def finish():
    failed = failures()
    print(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def read_state(path):
    """The checkpoint's sections as {name: [values]} (hexadecimal floats, exactly)."""
    out, key, left = {}, None, 0
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if left:
                out[key].append(float.fromhex(line))
                left -= 1
                continue
            parts = line.split()
            if parts[0] == "t":
                out[parts[0]] = float.fromhex(parts[1])
            elif parts[0] in ("q", "u", "z", "discrete", "auto", "commit"):
                key, left = parts[0], int(parts[1])
                out[key] = []
            else:
                out[parts[0]] = parts[1:]
    return out
