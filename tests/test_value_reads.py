"""Which attribute names code reads as values (`analysis.infer.value_reads`): a container the step only fills
(`self.log["q"].append(v)`, also through a key) is write-only; in entry mode only the code the step runs is
asked, so a `save()` after the loop reading the log does not make it state."""
from __future__ import annotations

import ast

import pytest

from leapp_codemod.analysis.infer.value_reads import value_read_attrs


def _reads(source: str, modules=frozenset()) -> frozenset[str]:
    return value_read_attrs([(list(ast.walk(ast.parse(source))), modules)])


@pytest.mark.parametrize("source, read", [
    ("self.log.append(v)", False),
    ("self.log['q'].append(v)", False),                 # a keyed fill lands in the same container
    ("self.log['q'][0].extend(v)", False),
    ("n = len(self.log['q'])", True),                   # its length is read
    ("x = np.stack(self.log['q'])", True),
    ("getattr(self, 'log')", True),                     # read by its spelling
    ("d = {'log': 1}", False),                          # a dict key names no attribute
    ("y = np.log(x)", False),                           # a function of an imported module, no field
    ("y = obj.log(x)", False),                          # a method called, no field read
])
def test_what_reads_an_attribute_as_a_value(source, read):
    assert ("log" in _reads(source, frozenset({"np"}))) is read


def test_only_the_given_code_is_asked():
    step = "self.log['q'].append(v)\nself.hist.append(v)\nx = sum(self.hist)"
    after_loop = "json.dump(self.log, f)"
    assert "log" not in _reads(step) and "hist" in _reads(step)
    assert "log" in value_read_attrs([(list(ast.walk(ast.parse(step))), frozenset()),
                                      (list(ast.walk(ast.parse(after_loop))), frozenset())])
