# SPDX-License-Identifier: MIT
"""The package's modules import one another without a circle: every
relative import, at module level or inside a function, read from the
source, and the graph they make checked for a cycle."""
import ast
import os

import gpu_tracker

PACKAGE = os.path.dirname(gpu_tracker.__file__)


def _imports(path):
    """The package modules path's code imports, by module name."""
    tree = ast.parse(open(path).read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split('.')[0])
            else:  # from . import x, y
                found.update(a.name for a in node.names)
    return found


def _graph():
    modules = {f[:-3] for f in os.listdir(PACKAGE) if f.endswith('.py')}
    return {m: _imports(os.path.join(PACKAGE, m + '.py')) & modules - {m} for m in modules if m != '__init__'}


def _cycle(graph):
    """One cycle of graph as a list of modules, or None."""
    state = {}

    def visit(m, path):
        state[m] = 'open'
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 'open':
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n, path + [n])
                if found:
                    return found
        state[m] = 'done'
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


def test_the_graph_is_read():
    graph = _graph()
    assert 'run_extras' in graph['tracker'] and '_lib' in graph['tracker']


def test_no_module_imports_back_around_a_circle():
    assert _cycle(_graph()) is None, ' -> '.join(_cycle(_graph()))


def test_a_circle_is_found():
    assert _cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a', 'b', 'c', 'a']
