"""moto_server, answering one request at a time, that exits when the test process that started it dies.

moto's server is threaded and its DynamoDB backend takes no lock between evaluating a condition and
writing, so two concurrent conditional writes could both pass there (DynamoDB never lets them).
Serving one request at a time makes every call atomic, as DynamoDB's single-item writes are;
whether exactly one racer wins then depends only on the store's ConditionExpressions.

Usage: python3 serial_moto_server.py -H 127.0.0.1 -p PORT   (the arguments of moto_server)
"""

import copy
import os
import signal
import sys
import threading
import time

import moto.server
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table

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


# moto backs up a transaction by deep-copying the whole table, once per write in it: each
# TransactWriteItems then costs time in proportion to everything ever stored, and this server
# answers nothing else meanwhile. In a long run (`make faults`, where every refresh is a
# transaction and moto never expires items) that grew into stalls of several seconds for every
# request, store and KMS alike, that DynamoDB never shows. The backup below keeps exactly what a
# failed transaction must restore, the items it names, so a transaction costs what its items do;
# conditions, cancellations and all-or-nothing stay moto's own.
class _TablesNotCopied:
    """`copy` for moto's DynamoDB models module, except that a deep copy of a table is the table."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


dynamodb_models.copy = _TablesNotCopied()
_transact_write_items = DynamoDBBackend.transact_write_items


def transact_write_items(self, transact_items):
    saved = []
    for entry in transact_items:
        try:
            op_type, op = next(iter(entry.items()))
            table = self.get_table(op["TableName"])
            hash_key, range_key = self.get_keys_value(table, op["Item"] if op_type == "Put" else op["Key"])
        except Exception:
            continue  # a malformed write: moto refuses the transaction before writing anything
        stored = table.items.get(hash_key) if range_key is None else table.items.get(hash_key, {}).get(range_key)
        saved.append((table, hash_key, range_key, copy.deepcopy(stored)))
    try:
        return _transact_write_items(self, transact_items)
    except Exception:
        # In reverse, so an item named twice (refused by moto) gets its first, original copy back.
        for table, hash_key, range_key, item in reversed(saved):
            if range_key is None:
                if item is None:
                    table.items.pop(hash_key, None)
                else:
                    table.items[hash_key] = item
            elif item is None:
                table.items.get(hash_key, {}).pop(range_key, None)
            else:
                table.items[hash_key][range_key] = item
        raise


DynamoDBBackend.transact_write_items = transact_write_items
moto.server.main(sys.argv[1:])
