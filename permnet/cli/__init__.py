"""The ``permnet`` command line: parse, call the library, render.

The root group lives here; every command group is a module of this package
defining ``group`` (a click group or command), named in :data:`COMMANDS`
and imported only when that command runs (or when help lists them all), so
start-up costs what the command needs and no more.
Every command is a thin wrapper around one library function.  Problems the
user can fix become one line on stderr and exit status 2; ``permnet verify``
(and the other verifying commands) exit 1 on a mismatch, and only then.
"""

from __future__ import annotations

import sys

import importlib

import click

from permnet import __version__
from permnet.cli.common import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED
from permnet.gen.errors import PermnetError

# command name -> module of this package; "families" adds the family, IP-graph
# and route subcommands to ``topo`` and ``route`` and defines ``search`` and ``compare``
COMMANDS = {name: name for name in ("benes", "board", "butterfly", "convert", "deadlock", "demo", "fabric", "faults",
                                    "hil", "mesh", "mixed", "netsim", "ocs", "orp", "planes", "plot", "rtl", "synth",
                                    "verify", "plan")}
COMMANDS.update(topo="families", route="families", search="families", compare="families")
COMMANDS["fusesoc-gen"] = "fusesoc"


class _Commands(click.Group):
    """The root group: a command's module is imported when it is looked up."""

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(COMMANDS))

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            if COMMANDS[name] == "families":
                from permnet.cli import families, route, topo

                self.add_command(topo.group)
                self.add_command(route.group)
                families.register(self, topo.group, route.group)
            else:
                self.add_command(importlib.import_module(f"permnet.cli.{COMMANDS[name]}").group, name)
        cmd = self.commands.get(name)
        if cmd is not None:
            _once_each(cmd)
        return cmd


def _once_each(cmd) -> None:
    """Make ``cmd`` (and its subcommands) refuse an option given twice (``-M 16 -M 32``): the
    last would win silently, and options that contradict each other are refused. Options
    declared ``multiple`` or ``count`` are meant to be repeated."""
    if getattr(cmd, "_once_each", False):
        return
    parse = cmd.parse_args

    def parse_args(ctx, args):
        if not ctx.resilient_parsing:
            _, _, order = cmd.make_parser(ctx).parse_args(args=list(args))
            seen = set()
            for param in order:
                if isinstance(param, click.Option) and not (param.multiple or param.count):
                    if param.name in seen:
                        flags = "/".join(sorted(param.opts + param.secondary_opts, key=len, reverse=True))
                        raise click.UsageError(f"{flags} given more than once; give it once", ctx)
                    seen.add(param.name)
        return parse(ctx, args)

    cmd.parse_args = parse_args
    cmd._once_each = True
    for sub in getattr(cmd, "commands", {}).values():
        _once_each(sub)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="permnet")
def cli():
    """permnet: interconnection networks to switch configurations and RTL."""


def main(argv=None) -> int:
    """Entry point: run the CLI, turning user errors into one line."""
    import warnings

    # A module rejected by its own parameter checks is never elaborated;
    # Amaranth would warn about that at exit, after our one-line error.
    warnings.filterwarnings("ignore", message=".*created but never used")
    import os
    import signal

    use_writable_numba_cache()

    received = []       # the signals that arrived: the command ends with the first one's exit status

    def _terminated(signum, frame):
        # SystemExit unwinds like an exception: temporary outputs are removed.
        received.append(signum)
        raise SystemExit(128 + signum)

    def _interrupted(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    if threading_is_main():
        signal.signal(signal.SIGTERM, _terminated)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:    # not when ignored (cmd &)
            signal.signal(signal.SIGINT, _interrupted)
    try:
        cli.main(args=argv, prog_name="permnet", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        return 0
    except (click.exceptions.Abort, KeyboardInterrupt):
        return _stopped(EXIT_INTERRUPTED, received)
    except SystemExit as exc:
        if exc.code == 128 + signal.SIGTERM:
            _stopped(exc.code, received)
        raise
    except click.ClickException as exc:
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"permnet: error: {msg}", err=True)
        return EXIT_BAD_INPUT
    except PermnetError as exc:
        click.echo(f"permnet: error: {exc}", err=True)
        return EXIT_BAD_INPUT
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"permnet: error: {where}{exc.strerror or exc}", err=True)
        return EXIT_BAD_INPUT
    except MemoryError:
        click.echo("permnet: error: out of memory: the request is too large for this machine", err=True)
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug, never reported as bad input
        code = _signal_status(exc, received)
        if code is not None:        # a signal raised inside a call that could not pass it on (numba: SystemError)
            if code == EXIT_INTERRUPTED:
                return _stopped(code, received)
            _stopped(code, received)
            raise SystemExit(code) from None
        line = _tool_memory_line(exc)
        if line is not None:
            click.echo(f"permnet: error: {line}", err=True)
            return EXIT_BAD_INPUT
        if os.environ.get("PERMNET_DEBUG"):
            raise
        line = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        click.echo(f"permnet: internal error: {line} (PERMNET_DEBUG=1 shows the traceback)", err=True)
        return EXIT_INTERNAL
    return 0


def _signal_status(exc: BaseException, received) -> int | None:
    """130 or 143 when ``exc`` is the consequence of a signal: a ``KeyboardInterrupt`` or the
    SIGTERM handler's ``SystemExit`` among its causes (a numba kernel returning while the
    handler's exception is set raises ``SystemError`` from it), or any error after a signal."""
    import signal

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, KeyboardInterrupt):
            return EXIT_INTERRUPTED
        if isinstance(exc, SystemExit) and exc.code in (128 + signal.SIGTERM, EXIT_INTERRUPTED):
            return exc.code
        exc = exc.__cause__ or exc.__context__
    if received:
        return EXIT_INTERRUPTED if received[0] == signal.SIGINT else 128 + received[0]
    return None


def _stopped(code: int, received) -> int:
    """The one line of a command stopped by a signal; when a real signal arrived, the process
    ends here (the outputs are already removed): tearing down a large elaborated design or
    numba's state could take seconds more."""
    import os

    click.echo("permnet: interrupted" if code == EXIT_INTERRUPTED else "permnet: terminated", err=True)
    if received:
        _end_children()
        _unlink_semaphores()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a closed pipe: nothing more to say
                pass
        os._exit(code)
    return code


def _unlink_semaphores() -> None:
    """Run multiprocessing's exit-time clean-ups that ``os._exit`` skips (``exitpriority`` >= 0:
    the named semaphores of a process pool or a Dask LocalCluster unlinked, queues closed), so
    that its resource tracker does not print "leaked semaphore objects" after our one line."""
    import multiprocessing.util

    try:
        multiprocessing.util._run_finalizers(0)
    except Exception:  # a clean-up that fails at exit: the tracker still unlinks what is left
        pass


def _end_children() -> None:
    """SIGTERM to this process's own child processes (a yosys that Amaranth started and does not
    stop when the wait for it is interrupted), so that none outlives the command.  Linux
    (``/proc``); elsewhere nothing."""
    import os
    import signal

    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
            if ppid == me:
                os.kill(int(entry), signal.SIGTERM)
        except (OSError, ValueError, IndexError):      # gone meanwhile, or not ours to signal
            continue


def _tool_memory_line(exc: BaseException) -> str | None:
    """The one line for a synthesis tool (yosys, a WebAssembly program run by wasmtime) that
    could not reserve its address space, as under ``ulimit -v``; None for anything else."""
    text = str(exc)
    if type(exc).__name__ == "YosysError" and (
            "failed to reserve" in text or "Cannot allocate memory" in text):
        return ("the synthesis tool (yosys, run in WebAssembly) could not reserve its memory: it needs about "
                "4.1 GB of virtual address space; raise the address-space limit (ulimit -v unlimited, or at "
                "least 5000000 KB)")
    return None


def use_writable_numba_cache(env=None) -> str | None:
    """numba caches compiled kernels beside their source (``__pycache__``); where that tree is
    not writable (a system install, a container running as another user) it tries the user's
    cache folder and, if that is not writable either, fails every command ("cannot cache
    function ...: no locator available").  Unless ``NUMBA_CACHE_DIR`` is set, point it at a
    writable per-user folder then (``$XDG_CACHE_HOME``/``~/.cache``/``permnet-numba``, else
    one in the temporary folder).  Returns the folder chosen, or None."""
    import os
    import tempfile
    from pathlib import Path

    env = os.environ if env is None else env
    if env.get("NUMBA_CACHE_DIR"):
        return None
    import permnet

    tree = Path(permnet.__file__).resolve().parent.parent
    if all(_writable(tree / sub) for sub in ("gen", "sim")):
        return None
    home = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (os.path.join(home, "permnet-numba"),
                   os.path.join(tempfile.gettempdir(), f"permnet-numba-{os.getuid()}")):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError:
            continue
        if _writable(Path(folder)):
            env["NUMBA_CACHE_DIR"] = folder
            if "numba" in sys.modules and env is os.environ:    # numba read its configuration at import
                from numba.core import config

                config.reload_config()
            return folder
    return None


def _writable(folder) -> bool:
    """Whether files can be created in ``folder`` (or its ``__pycache__``)."""
    import os

    cache = folder / "__pycache__"
    target = cache if cache.is_dir() else folder
    return os.access(target, os.W_OK | os.X_OK)


def threading_is_main() -> bool:
    """Signal handlers can only be installed from the main thread."""
    import threading

    return threading.current_thread() is threading.main_thread()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
