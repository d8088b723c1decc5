"""Guest side of the fast Python runtime (built with componentize-py).

The modules imported here are snapshotted into the component at build time,
so generated programs can import them without a filesystem.
"""

import abc, array, ast, base64, binascii, bisect, calendar, cmath, codecs, collections  # noqa: E401,F401
import contextlib, copy, csv, dataclasses, datetime, decimal, difflib, enum, fractions  # noqa: E401,F401
import functools, hashlib, heapq, io, itertools, json, keyword, math, numbers, operator  # noqa: E401,F401
import pprint, queue, random, re, statistics, string, struct, sys, textwrap, time  # noqa: E401,F401
import traceback, types, typing, unicodedata, uuid, warnings, weakref  # noqa: E401,F401
import collections.abc, os, os.path  # noqa: E401,F401

import wit_world

# Modules present at snapshot time; anything else is reported so the host can fall back.
_BASELINE = frozenset(sys.modules)


class WitWorld(wit_world.WitWorld):
    def run(self, code: str) -> int:
        g = {"__name__": "__main__", "__builtins__": __builtins__}
        status = 0
        try:
            exec(compile(code, "<program>", "exec"), g)
        except SystemExit as e:
            c = e.code
            if c is None:
                status = 0
            elif isinstance(c, int):
                status = c & 0xFF
            else:
                print(c, file=sys.stderr)
                status = 1
        except ModuleNotFoundError as e:
            traceback.print_exc()
            # Distinct code: the host retries on the full runtime.
            status = 0x100 if e.name and e.name.split(".")[0] not in _BASELINE else 1
        except BaseException:
            traceback.print_exc()
            status = 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        return status
