#!/usr/bin/env python3
# A small pty driver for the terminal tests: runs a command on a pseudo-terminal of a given size, and plays
# a script of steps read as JSON from stdin: {"wait": "text"} waits until the screen (since the last wait
# matched) contains text, {"file": path, "contains": text} until a file contains text, {"pause": ms} lets a
# duration pass, {"send": "keys"} types keys, {"signal": "SIGCONT"} signals the child's group, {"hangup": true}
# closes the terminal (the master side, as a closed terminal window does; the last step).
# Prints one JSON object: the whole screen, the exit code (or signal), and the step that timed out, if any.
import json, os, pty, select, signal, struct, sys, fcntl, termios, time

def main():
    spec = json.load(sys.stdin)
    argv, steps = spec["argv"], spec["steps"]
    cols, rows = spec.get("cols", 120), spec.get("rows", 40)
    step_timeout = spec.get("timeout", 15)
    pid, fd = pty.fork()
    if pid == 0:
        # A null value removes the variable (CI=true from the runner is no person's terminal).
        for k, v in spec.get("env", {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    screen = b""
    mark = 0
    failed = None
    hung_up = False

    def read_some(timeout):
        nonlocal screen
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        screen += data
        return True

    for i, step in enumerate(steps):
        if "wait" in step:
            want = step["wait"].encode()
            deadline = time.monotonic() + step.get("timeout", step_timeout)
            while want not in screen[mark:]:
                left = deadline - time.monotonic()
                if left <= 0 or not read_some(min(left, 0.5)):
                    if want in screen[mark:]:
                        break
                    failed = {"step": i, "wait": step["wait"]}
                    break
            if failed:
                break
            mark = screen.index(want, mark) + len(want)
        elif "file" in step:
            # Waits until a file (a fixture's log) contains text, reading the terminal meanwhile.
            deadline = time.monotonic() + step.get("timeout", step_timeout)
            while True:
                try:
                    with open(step["file"]) as f:
                        if step["contains"] in f.read():
                            break
                except FileNotFoundError:
                    pass
                if time.monotonic() >= deadline:
                    failed = {"step": i, "wait": "%s in %s" % (step["contains"], step["file"])}
                    break
                read_some(0.05)
            if failed:
                break
        elif "pause" in step:
            # A duration the test asserts (nothing happens meanwhile), reading the terminal all along.
            until = time.monotonic() + step["pause"] / 1000
            while time.monotonic() < until:
                read_some(min(0.05, max(0, until - time.monotonic())))
        elif "hangup" in step:
            os.close(fd)
            hung_up = True
            break
        elif "send" in step:
            os.write(fd, step["send"].encode())
        elif "signal" in step:
            os.killpg(os.getpgid(pid), getattr(signal, step["signal"]))
    if failed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    # Read to the end, then reap.
    deadline = time.monotonic() + step_timeout
    status = None
    if hung_up:
        # Nothing more to read: the child ends within the step timeout, else it is killed.
        while status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif time.monotonic() >= deadline:
                failed = {"step": len(steps) - 1, "wait": "the end after the hangup"}
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
            else:
                time.sleep(0.02)
    else:
        while time.monotonic() < deadline and read_some(0.5):
            pass
        _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    print(json.dumps({"screen": screen.decode("utf-8", "replace"), "code": code, "failed": failed}))

main()
