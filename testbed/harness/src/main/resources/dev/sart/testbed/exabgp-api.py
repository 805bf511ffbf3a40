"""ExaBGP API helper of the sart test bed (started by ExaBGP from a `process` block).

usage: python3 exabgp-api.py COMMAND_FIFO EVENTS_FILE READY_FILE

- Every line written to COMMAND_FIFO is copied to stdout, which ExaBGP reads as an API command
  ("announce route ...", "withdraw route ...", "announce attribute ... nlri ...").
- Every line ExaBGP writes to stdin (JSON events with `encoder json`, and the "done"/"error"
  acknowledgements of `exabgp.api.ack`) is appended to EVENTS_FILE and flushed at once.
- READY_FILE is created once the FIFO is open, so writers never block.
- Exits when ExaBGP closes stdin (it stopped), never outliving it.

The FIFO is opened read-write: it never reports end-of-file when a writer closes it, and writers
(which open it read-write too) never block on open.
"""

import os
import sys
import threading


def relay(fd):
    pending = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            line = line.strip()
            if line:
                sys.stdout.write(line.decode("utf-8") + "\n")
                sys.stdout.flush()


def main():
    fifo, events, ready = sys.argv[1:4]
    fd = os.open(fifo, os.O_RDWR)
    threading.Thread(target=relay, args=(fd,), daemon=True).start()
    with open(events, "a", encoding="utf-8") as out:
        open(ready, "w").close()
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            out.write(line if line.endswith("\n") else line + "\n")
            out.flush()
    # the relay thread may be blocked in read(): leave without waiting for it
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        os._exit(0)
