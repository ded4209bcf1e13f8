"""Answers kept for the current outermost question (see `project.Questions`)."""
from __future__ import annotations

from leapp_codemod.analysis.model.project import questions


def answered_once(method):
    """Keep `method`'s answers for the current outermost question (see `project.Questions`)."""
    kind = method.__name__

    def asked(self, *args):
        q = questions(self.project)
        if not q.frames:
            q.answers.clear()
        key = (kind, self._asker(), *(a if isinstance(a, str) else id(a) for a in args))
        kept = q.kept(key)
        if kept is not None:
            return kept.copy()
        outer_reach, q.reach = q.reach, q.NEVER
        q.serial += 1
        q.frames.append(q.serial)
        try:
            answer = method(self, *args)
        finally:
            q.frames.pop()
            reach, q.reach = q.reach, min(outer_reach, q.reach)
        q.keep(key, answer, reach, (self, args))
        return answer.copy()

    asked.__name__, asked.__doc__ = method.__name__, method.__doc__
    return asked

