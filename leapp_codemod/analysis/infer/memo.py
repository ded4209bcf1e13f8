"""Answers kept for the current outermost question (see `project.Questions`)."""
from __future__ import annotations

from leapp_codemod.analysis.model.project import Questions, questions

_NEVER = Questions.NEVER


def answered_once(method):
    """Keep `method`'s answers for the current outermost question (see `project.Questions`).

    The wrapper runs on every question the rules and the fixpoint ask, so `Questions.kept` / `keep` and the
    context's `_asker` are spelled out here (same keys, same rules) rather than called."""
    kind = method.__name__

    def asked(self, *args):
        q = self.project.memo.get(Questions) or questions(self.project)
        frames = q.frames
        if not frames:
            q.answers.clear()
        env = self.env
        asker = id(self) if env.data or env.shape or env.numpy or env.types else self.fn.id
        if len(args) == 1:
            a = args[0]
            key = (kind, asker, a if isinstance(a, str) else id(a))
        else:
            key = (kind, asker, *(a if isinstance(a, str) else id(a) for a in args))
        found = q.answers.get(key)
        if found is not None:
            answer, reach, serial, _ = found
            if reach >= _NEVER:
                return answer.copy()
            if not (reach > 0 and (len(frames) < reach or frames[reach - 1] != serial)):
                q.cut(reach)
                return answer.copy()
        outer_reach, q.reach = q.reach, _NEVER
        q.serial += 1
        frames.append(q.serial)
        try:
            answer = method(self, *args)
        finally:
            frames.pop()
            reach, q.reach = q.reach, min(outer_reach, q.reach)
        q.keep(key, answer, reach, (self, args))
        return answer.copy()

    asked.__name__, asked.__doc__ = method.__name__, method.__doc__
    return asked
