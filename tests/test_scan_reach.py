"""Type dispatch, container lengths, container-annotated entry inputs, accumulated buffers and nested
shape arithmetic, as robot code writes them. Each snippet marks its flagged lines with `# error: CATEGORY`;
every other line must stay silent. The first function of a snippet (or the `step` method) is the entry."""
from __future__ import annotations

import pytest
from test_rule_examples import expected_marks, scan_snippet

SNIPPETS = {
    # a message container that converts what it is given, dispatching on Python types
    "type-predicate-helpers": (
        "from collections.abc import Mapping\nimport numpy as np\nimport torch\n"
        "def is_plain(v):\n    return isinstance(v, (int, float)) or np.isscalar(v)\n"
        "def is_nested(v):\n    return isinstance(v, tuple) and len(v) > 0 and all(isinstance(p, Mapping) for p in v)\n"
        "class Msg:\n    def __init__(self, fields=None, **more):\n        self.f = {}\n"
        "        if fields is not None and is_nested(fields):\n            self.f['parts'] = list(fields)\n"
        "        if len(more) > 0:\n            for name, v in more.items():\n"
        "                self.f[name] = v if not is_plain(v) else torch.tensor(v)\n"
        "def step(cmd):\n    out = torch.tanh(cmd)\n    return Msg(cmd=out, gain=out * 2)\n"),
    # a real data predicate stays a tensor branch
    "data-predicate-still-flagged": (
        "import torch\ndef saturated(u):\n    return u.abs().max() > 0.9\n"
        "def step(u):\n    if saturated(u):  # error: tensor-branch\n        u = u * 0.5\n    return u\n"),
    # lengths of Python containers narrowed by isinstance, of key views, of **kwargs
    "container-lengths": (
        "import torch\ndef step(frames, **extras):\n    groups = []\n    for f in frames:\n"
        "        if isinstance(f, dict):\n            if len(f) > 2:\n                groups.append(f)\n"
        "    if len(groups) == 0 and len(frames.keys()) > 1:\n        pass\n"
        "    if len(extras) > 0:\n        pass\n    return torch.stack(list(frames.values())).sum(0)\n"),
    # a length of pipeline data itself is still a shape branch
    "array-length-still-flagged": (
        "import torch\ndef step(points):\n    if len(points) > 16:  # error: shape-specialization\n"
        "        points = points[:16]\n    return points.mean(0)\n"),
    # `all(...)` over a container's elements: only a test on the values is data
    "all-over-values": (
        "import torch\ndef step(joints):\n    parts = [joints[:3], joints[3:]]\n"
        "    if all(isinstance(p, torch.Tensor) for p in parts):\n        joints = torch.cat(parts)\n"
        "    if any(p.abs().max() > 3 for p in parts):  # error: tensor-branch\n        joints = joints * 0\n"
        "    return joints\n"),
    # a 0-d test on an array is a rank question, fixed for a pipeline
    "rank-truthiness": (
        "import numpy as np\ndef step(q):\n    a = np.tanh(q)\n    if not a.shape:\n        a = a[None]\n"
        "    return a\n"),
    # an entry input annotated as a container holds the tensors the driver passes
    "dict-annotated-entry": (
        "import torch\nclass Arm:\n    def step(self, sensors: dict, limits: tuple = (1.0, 2.0)):\n"
        "        wrench = sensors['ft'] * 0.1\n        if wrench.norm() > limits[0]:  # error: tensor-branch\n"
        "            wrench = wrench * 0\n        return wrench\n"),
    # a target buffer copied from a constant at start-up, reset then accumulated into on every call
    "reset-then-accumulate": (
        "import numpy as np\nclass Leg:\n    def __init__(self, stand):\n        self.stand = np.array(stand)\n"
        "        self.q_des = np.copy(self.stand)\n    def step(self, act):\n        a = np.clip(act, -1.0, 1.0)\n"
        "        self.q_des[:] = self.stand\n        self.q_des[4:] += 0.25 * a  # error: inplace-state\n"
        "        return self.q_des\n"),
    # `.squeeze()` without an axis on a NumPy array of the pipeline; the function form and torch are fine
    "squeeze-forms": (
        "import numpy as np\nimport torch\ndef step(obs, w):\n    h = np.tanh(np.matmul(obs, w))\n"
        "    a = h.squeeze()  # error: unmapped-numpy\n    b = np.squeeze(h)\n    c = h.squeeze(axis=0)\n"
        "    d = torch.from_numpy(h).squeeze()\n    return a, b, c, d\n"),
    # iterating a dict the function built walks its keys; a key-set check is about names
    "keys-of-a-built-dict": (
        "import torch\ndef step(obs, stats):\n    obs = {k: obs[k] * 1.0 for k in ('arm', 'cam')}\n"
        "    assert set(obs.keys()).issubset(stats)\n    for k in obs:\n"
        "        if k.startswith('cam') or is_image(k):\n            obs[k] = obs[k] / 255.0\n"
        "        if obs[k].max() > 10:  # error: tensor-branch\n            obs[k] = obs[k] * 0\n    return obs\n"
        "def is_image(name):\n    return name in ('cam', 'depth')\n"),
    # the last dimension (an action dimension, a feature width) and the rank are fixed for a pipeline;
    # a leading count compared with a setting is not
    "fixed-dimensions-against-settings": (
        "import torch\nclass Planner:\n    def __init__(self, n_joints, max_pts):\n"
        "        self.n_joints = n_joints\n        self.max_pts = max_pts\n    def step(self, q, pts):\n"
        "        if q.size(-1) < self.n_joints:\n            q = torch.cat([q, q[..., :1]], -1)\n"
        "        per_joint = q.shape[-1]\n        grid = q.reshape(-1, per_joint * 2 // 2)\n"
        "        if pts.dim() != 3:\n            pts = pts[None]\n"
        "        if pts.shape[0] > self.max_pts:  # error: shape-specialization\n            pts = pts[: self.max_pts]\n"
        "        return grid, pts\n"),
    # a dict the only driver builds with constants decides the branches that read it
    "dict-get-defaults-the-driver-sets": (
        "import numpy as np\nclass Encoder:\n    def __init__(self, net):\n        self.net = net\n"
        "    def step(self, batch):\n        img = batch['rgb'] / 255.0\n        jitter = batch.get('jitter', True)\n"
        "        if jitter:\n            img = img + np.random.normal(0, 0.01, img.shape)\n"
        "        if batch.get('crop', 'none') == 'center' and img.mean() > 0.5:\n"
        "            img = np.linalg.pinv(img)\n"
        "        if batch.get('gain', 1) and img.max() > 1:  # error: tensor-branch\n            img = img / img.max()\n"
        "        return self.net(img)\n"
        "def run(cam, net):\n    enc = Encoder(net)\n    while True:\n        frame = cam()\n"
        "        enc.step({'rgb': frame, 'jitter': False})\n        opts = {'rgb': frame, 'jitter': False, 'crop': 'none'}\n"
        "        enc.step(opts)\n"),
    # a constant the step picks by a branch on data, read by the next call before this call rewrites it
    "constant-chosen-by-data": (
        "import numpy as np\nclass Gait:\n    def __init__(self, period):\n        self.period = period\n"
        "        self.stride = 0.3\n        self.mode = 1\n    def step(self, t, vel):\n"
        "        phase = np.sin(t * self.stride)\n"
        "        if np.abs(vel).max() < 0.05:  # error: tensor-branch\n"
        "            self.stride = 0.0  # error: inplace-state\n        else:\n"
        "            self.stride = 0.3  # error: inplace-state\n"
        "        if vel.sum() > 2:  # error: tensor-branch\n            self.mode = 2\n"
        "        return phase * vel\n"),
    # a condition on a shape and on values is one branch on data, reported once
    "shape-and-values-one-finding": (
        "import torch\ndef step(cmd, pts):\n    if pts.size(0) > 3 and cmd.abs().max() > 1:  # error: tensor-branch\n"
        "        cmd = cmd * 0\n    y = cmd if not pts.size(0) or cmd.sum() > 0 else -cmd  # error: tensor-branch\n"
        "    if pts.size(0) > 64:  # error: shape-specialization\n        pts = pts[:64]\n    return y, pts\n"),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(tmp_path, name):
    snippet = SNIPPETS[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


def test_nested_shape_arithmetic_is_reported_once(tmp_path):
    snippet = ("def step(tokens, budget, rate):\n    spare = ((budget - tokens.shape[1]) * rate) // 2\n"
               "    return tokens[:, :spare]\n")
    findings = [f for f in scan_snippet(tmp_path, snippet).findings if f.code == "LCM002"]
    assert [(f.line, f.column) for f in findings] == [(2, 15)]



def test_a_conditional_expression_whose_branch_is_a_bare_name_is_analyzed(tmp_path):
    """`size if full else len(size) * [0]` in every-function mode: the type-narrowing walk met an `IfExp`,
    whose body is one expression, not a list of statements, and the shape rule crashed (internal error)."""
    from leapp_codemod.scan.pipeline import scan_project

    path = tmp_path / "pad.py"
    path.write_text("import torch\n\n\ndef padded(size, full=True):\n"
                    "    return torch.zeros(size if full else len(size) * [0])\n", encoding="utf-8")
    result = scan_project([str(path)], all_functions=True)
    assert result.errors == [] and result.files_analyzed == 1
    assert [f.code for f in result.findings] == ["LCM002"]     # the run-time length of `size`
