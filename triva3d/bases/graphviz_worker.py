"""Run one Graphviz layout in a fresh process: DOT on stdin, positions on stdout.

Graphviz keeps random state between layouts in one process, so the same graph
laid out twice in a process can differ; a fresh process makes layouts repeatable.
Usage: python -m triva3d.bases.graphviz_worker PROGRAM < graph.dot
"""
import json
import sys


def main():
    import pygraphviz

    g = pygraphviz.AGraph(string=sys.stdin.read())
    g.layout(prog=sys.argv[1])
    pos = []
    for i in range(g.number_of_nodes()):
        x, y = g.get_node(f"n{i}").attr["pos"].rstrip("!").split(",")[:2]
        pos.append([float(x), float(y)])
    json.dump(pos, sys.stdout)


if __name__ == "__main__":
    main()
