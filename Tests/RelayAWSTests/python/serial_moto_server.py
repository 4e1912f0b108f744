"""moto_server, answering one request at a time, that exits when the test process that started it dies.

moto's server is threaded and its DynamoDB backend takes no lock between evaluating a condition and
writing, so two concurrent conditional writes could both pass there (DynamoDB never lets them).
Serving one request at a time makes every call atomic, as DynamoDB's single-item writes are;
whether exactly one racer wins then depends only on the store's ConditionExpressions.

Usage: python3 serial_moto_server.py -H 127.0.0.1 -p PORT   (the arguments of moto_server)
"""

import os
import signal
import sys
import threading
import time

import moto.server

# A child spawned from a Swift concurrency thread inherits that thread's blocked signals, SIGTERM
# among them; unblock everything so the tests can stop this server by PID.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
parent = os.getppid()


def exit_with_parent():
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


threading.Thread(target=exit_with_parent, daemon=True).start()

run_simple = moto.server.run_simple


def serial_run_simple(*args, **kwargs):
    kwargs["threaded"] = False
    return run_simple(*args, **kwargs)


moto.server.run_simple = serial_run_simple
moto.server.main(sys.argv[1:])
