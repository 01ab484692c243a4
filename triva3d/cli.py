"""The `triva3d` command: a thin layer over the library.

Bad input prints one line `triva3d: error: FILE:LINE: reason` and exits 2.
"""
import argparse
import json
import sys
import time

from .errors import TraceError


def _load(args):
    from .load import load
    t0 = time.perf_counter()
    trace = load(args.trace, lenient=args.lenient, cache=not args.no_cache,
                 progress=sys.stderr.isatty())
    return trace, time.perf_counter() - t0


def _report(trace):
    for what, count, line in trace.report:
        print(f"triva3d: recovered: {what}: {count} (first at line {line})", file=sys.stderr)


def cmd_dump(args):
    from .dump import dump
    trace, _ = _load(args)
    _report(trace)
    dump(trace, sys.stdout.buffer, user_defined=args.user_defined)
    sys.stdout.buffer.flush()


def cmd_stats(args):
    from .stats import render, summary
    trace, seconds = _load(args)
    s = summary(trace, seconds)
    if args.json:
        print(json.dumps(s, indent=1))
    else:
        sys.stdout.write(render(s))


def parser():
    p = argparse.ArgumentParser(prog="triva3d", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def trace_command(name, func, help):
        c = sub.add_parser(name, help=help, description=help)
        c.add_argument("trace", metavar="TRACE", help="Pajé trace file")
        c.add_argument("--lenient", action="store_true",
                       help="recover where PajeNG would stop (legacy field names, incomplete "
                            "links, out-of-order events...) and report every recovery")
        c.add_argument("--no-cache", action="store_true",
                       help="parse the trace even if a cached copy is up to date")
        c.set_defaults(func=func)
        return c

    d = trace_command("dump", cmd_dump, "print the trace as PajeNG's pj_dump does")
    d.add_argument("-u", "--user-defined", action="store_true",
                   help="append user-defined fields (as pj_dump -u)")
    s = trace_command("stats", cmd_stats, "summarize a trace: hierarchy, counts, time span")
    s.add_argument("--json", action="store_true", help="print JSON")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except TraceError as e:
        print(f"triva3d: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()  # output closed early (e.g. piped to head)
        return 0
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
