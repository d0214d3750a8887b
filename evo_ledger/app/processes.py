"""How the processes of a server run: the server itself, and those it starts beside it (the writing process,
the read tables' runner)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess

# A long-running process allocates and frees many small objects per append, and keeps a cache of games: with the
# default thresholds (700, 10, 10) the collector runs a full pass, over every cached game, many times a second.
COLLECTOR_THRESHOLDS = (20_000, 20, 100)


def run_beside_server(niceness: int = 0) -> None:
    """For a process a server starts: an interrupt at a terminal is for the server, which stops this process, and
    the scheduler treats it as batch work, so that a server's event loop that wakes it is not preempted by it.
    With a `niceness`, the process also gives way to the others when they compete for the CPU."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "sched_setscheduler"):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    if niceness:
        os.nice(niceness)


def settle_collector() -> None:
    """For a long-running process, once started: what exists now is never collected (it is moved out of the
    collector's sight), and young objects are collected less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


PRELOADED: list[str] = []  # the modules the fork server imports as it starts, each named by a caller


def server_context(*preload: str) -> ForkServerContext:
    """How a server starts its processes: from a fork server (a server runs threads, so no plain fork), which
    imports the modules named here (and by every call before) once for all of them, as it starts."""
    context = multiprocessing.get_context("forkserver")
    PRELOADED.extend(module for module in preload if module not in PRELOADED)
    context.set_forkserver_preload(list(PRELOADED))
    return context


def end_process(process: BaseProcess, timeout: float) -> None:
    """Waits `timeout` seconds for a process told to stop, then kills it."""
    process.join(timeout=timeout)
    if process.is_alive():
        process.kill()
        process.join()
