"""Dataflow and state as real robot code writes them, and the precision rules that keep look-alikes
silent. Each snippet marks its flagged lines with `# error: CATEGORY`; every other line must stay
silent. The fixture apps `scan_gait_deploy` and `scan_pick_precision` cover the same ground in the
shape of whole applications."""
from __future__ import annotations

import pytest
from test_rule_examples import expected_marks, scan_snippet

from leapp_codemod.scan import scan_project

STATE = {
    "external-predict-state-tuple": (
        "from policy_runtime import Runner\nclass Agent:\n    def __init__(self, path):\n"
        "        self.model = Runner.load(path)\n        self.states = None\n"
        "    def step(self, obs):\n"
        "        action, self.states = self.model.predict(obs, state=self.states)  # error: inplace-state\n"
        "        return action\n"),
    "starred-target": (
        "import torch\nclass P:\n    def __init__(self):\n        self.hist = torch.zeros(4, 3)\n"
        "    def step(self, obs):\n        first, *self.hist = torch.cat([obs, self.hist])  # error: inplace-state\n"
        "        return first\n"),
    "clock-from-float-increment": (
        "import torch\nclass Gait:\n    def __init__(self, dt):\n        self.t = 0.0\n        self.dt = dt\n"
        "    def step(self, obs):\n        self.t += self.dt  # error: inplace-state\n"
        "        return obs * torch.sin(torch.tensor(self.t))\n"),
    "counter-by-reassignment": (
        "import torch\nclass Gait:\n    def __init__(self):\n        self.tick = 0\n"
        "    def step(self, obs):\n        self.tick = (self.tick + 1) % 50  # error: inplace-state\n"
        "        if self.tick == 0:  # error: tensor-branch\n            obs = obs * 0\n        return obs\n"),
    "counter-nothing-reads": (
        "class P:\n    def __init__(self):\n        self.calls = 0\n"
        "    def step(self, obs):\n        self.calls = self.calls + 1\n        return obs * 2\n"),
    "list-history-extend-pop": (
        "import torch\nclass P:\n    def __init__(self):\n        self.frames = []\n"
        "    def step(self, obs):\n        self.frames.extend([obs])  # error: inplace-state\n"
        "        while len(self.frames) > 4:  # error: tensor-branch\n"
        "            self.frames.pop(0)  # error: inplace-state\n        return torch.stack(self.frames).mean(0)\n"),
    "random-generator-local": (
        "import torch\nimport numpy as np\nclass P:\n    def __init__(self):\n        self.rng = np.random.default_rng(0)\n"
        "    def step(self, obs):\n        g = torch.Generator()\n        a = torch.rand(3, generator=g)  # error: random-in-pipeline\n"
        "        b = self.rng.normal(size=3)  # error: random-in-pipeline\n        return obs + a + b\n"),
    "thread-target-writes-input": (
        "import threading\nclass Bridge:\n    def __init__(self):\n        self.latest = None\n"
        "        threading.Thread(target=self._poll, daemon=True).start()\n"
        "    def _poll(self):\n        while True:\n            self.latest = self.read_sensor()\n"
        "    def step(self, obs):\n        latest = self.latest  # error: io-in-pipeline\n"
        "        if latest.max() > 1:  # error: tensor-branch\n"
        "            obs = obs * 0\n        return obs\n"),
    "handler-named-callback": (
        "class Bridge:\n    def __init__(self):\n        self.low_state = None\n        self.mode = 'walk'\n"
        "    def LowStateHandler(self, msg):\n        self.low_state = msg\n"
        "    def set_mode(self, mode):\n        self.mode = mode\n"
        "    def step(self, obs):\n        if self.mode == 'walk':\n            obs = obs * 1\n"
        "        low = self.low_state  # error: io-in-pipeline\n"
        "        if low.q.max() > 1:  # error: tensor-branch\n            obs = obs * 0\n        return obs\n"),
    "socket-serial-datetime": (
        "import datetime\nimport socket\nimport serial\nclass Link:\n    def __init__(self):\n"
        "        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n        self.port = serial.Serial('/dev/ttyUSB0')\n"
        "    def step(self, obs):\n        self.sock.sendto(obs.tobytes(), ('127.0.0.1', 9000))  # error: io-in-pipeline\n"
        "        self.port.write(obs.tobytes())  # error: io-in-pipeline\n"
        "        now = datetime.datetime.now()  # error: io-in-pipeline\n        return obs * now.microsecond\n"),
    "structured-results-stay-data": (
        "import torch\ndef step(logits):\n    best = logits.max(dim=-1)\n"
        "    if best.indices[0] > 2:  # error: tensor-branch\n        logits = logits * 2\n"
        "    parts = dict(a=logits, b=logits * 2)\n    lo, hi = parts['a'], parts['b']\n"
        "    return hi.item() + lo  # error: scalar-extraction\n"),
}

PRECISION = {
    "counter-that-only-paces-logging": (
        "import logging\nlog = logging.getLogger(__name__)\nclass P:\n    def __init__(self):\n        self.calls = 0\n"
        "    def step(self, obs):\n        self.calls += 1\n        if self.calls % 50 == 0:\n"
        "            log.info('step %d', self.calls)\n        return obs * 2\n"),
    "training-ternary-and-or": (
        "import torch\nclass P:\n    def step(self, obs):\n"
        "        noisy = obs + torch.randn_like(obs) if self.training else obs\n"
        "        if not self.training or obs is None:\n            return noisy\n"
        "        else:\n            return noisy + torch.rand(1)\n"),
    "flag-parameters-of-helpers": (
        "def clip(x, enabled=True, how='hard', limit=None):\n    if enabled:\n        x = x * 2\n"
        "    if how == 'soft':\n        x = x / 2\n    if limit:\n        x = x - 1\n    return x\n"
        "def step(obs):\n    return clip(obs, enabled=False) + clip(obs)\n"),
    "flag-parameter-given-data": (
        "def clip(x, limit=None):\n    if limit is not None and (x > limit).any():  # error: tensor-branch\n"
        "        x = x * 0\n    return x\n"
        "def step(obs, bound):\n    return clip(obs, limit=bound)\n"),
    "scratch-written-then-read-by-helper": (
        "class P:\n    def __init__(self):\n        self.feat = None\n"
        "    def _head(self):\n        return self.feat * 2\n"
        "    def step(self, obs):\n        self.feat = obs + 1\n        self.feat = self.feat\n        return self._head()\n"),
    "conditional-write-read-by-helper-is-state": (
        "class P:\n    def __init__(self):\n        self.feat = None\n"
        "    def _head(self, obs):\n        return obs + self.feat\n"
        "    def step(self, obs):\n        out = self._head(obs)\n        self.feat = out  # error: inplace-state\n"
        "        return out\n"),
    "constant-and-written-buffers": (
        "import torch\nimport torch.nn as nn\nclass P(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('gain', torch.tensor(2.0))\n        self.register_buffer('bias', torch.zeros(1))\n"
        "    def step(self, obs):\n        g = self.gain.item()\n        b = self.bias.item()  # error: scalar-extraction\n"
        "        return obs * g + b\n"
        "    def calibrate(self, value):\n        self.bias.fill_(value)\n"),
    "rank-and-trailing-dimension-checks": (
        "def step(q, cloud, n=16):\n    if q.dim() != 2 or q.shape[1] != 4:\n        q = q.reshape(-1, 4)\n"
        "    if q.size(-1) == 4:\n        q = q * 1\n"
        "    if cloud.shape[0] == n:  # error: shape-specialization\n        cloud = cloud[:-1]\n    return q, cloud\n"),
    "io-root-cause": (
        "def step(obs):\n    print(obs.item(), obs[::-1])  # error: io-in-pipeline\n    return obs\n"),
    "dict-keys-and-names": (
        "def step(batch):\n    out = {}\n    for name in batch.keys():\n        if name.startswith('img'):\n"
        "            out[name] = batch[name] / 255\n    for k, v in batch.items():\n"
        "        if k not in out and k != 'mask':\n            out[k] = v\n    return out\n"),
}


@pytest.mark.parametrize("name", sorted(STATE))
def test_dataflow_and_state(tmp_path, name):
    snippet = STATE[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


@pytest.mark.parametrize("name", sorted(PRECISION))
def test_precision(tmp_path, name):
    snippet = PRECISION[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


def test_every_state_piece_is_recorded_for_generate(tmp_path):
    """`self.x, self.P = ...` writes two pieces of state; `generate` must declare both."""
    snippet = ("import torch\nclass Kalman:\n    def __init__(self):\n        self.x = torch.zeros(3)\n"
               "        self.P = torch.eye(3)\n    def step(self, z):\n        x_new = self.x + z\n"
               "        P_new = self.P * 0.9\n        self.x, self.P = x_new, P_new\n        return self.x\n")
    result = scan_snippet(tmp_path, snippet)
    assert {(s.attr, s.kind, s.line) for s in result.state} == {("x", "reassigned", 9), ("P", "reassigned", 9)}


def test_optional_entry_input_filled_by_the_driver(tmp_path):
    """`hidden=None` on the entry is pipeline data when the driver passes a value for it."""
    (tmp_path / "pol.py").write_text(
        "class P:\n    def step(self, obs, hidden=None, deterministic=True):\n"
        "        if deterministic:\n            obs = obs * 1\n"
        "        if hidden is not None and hidden.abs().max() > 1:\n            hidden = hidden * 0\n"
        "        return obs, hidden\n")
    (tmp_path / "drive.py").write_text(
        "from pol import P\np = P()\nh = None\nfor obs in range(3):\n    out, h = p.step(obs, hidden=h)\n")
    result = scan_project([str(tmp_path)], entry="pol:P.step")
    assert [(f.line, f.category) for f in result.findings] == [(5, "tensor-branch")]


def test_recurrent_state_through_an_installed_library(tmp_path):
    """The same feedback through sb3-contrib's real `RecurrentPPO.predict` (followed into site-packages):
    the LSTM state the application keeps on `self` is state, whatever the library's own findings."""
    snippet = ("from sb3_contrib import RecurrentPPO\nclass Agent:\n    def __init__(self, path):\n"
               "        self.model = RecurrentPPO.load(path)\n        self.states = None\n"
               "    def step(self, obs, starts):\n"
               "        action, self.states = self.model.predict(obs, state=self.states, episode_start=starts)\n"
               "        return action\n")
    result = scan_snippet(tmp_path, snippet)
    assert (7, "inplace-state") in {(f.line, f.category) for f in result.findings}
    assert [(s.attr, s.kind) for s in result.state] == [("states", "reassigned")]


def test_names_rebound_to_arrays_later_keep_their_earlier_type(tmp_path):
    snippet = ("import numpy as np\ndef step(obs):\n    feats = []\n    feats.append(obs * 2)\n"
               "    table = {'a': obs}\n    for key, value in table.items():\n        feats.append(value)\n"
               "    feats = np.stack(feats)\n    table = np.asarray(feats)\n"
               "    return feats.prod(), table.take([0])  # error: unmapped-numpy\n")
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


def test_constant_flags_prune_the_code_they_rule_out(tmp_path):
    """`deterministic=True` at every call: the sampling branch and the code after an early return
    never run, so their draws are not hazards; a flag some caller passes as data keeps both."""
    snippet = ("import torch\n"
               "def pick(mean, deterministic=False):\n    if deterministic:\n        return mean\n"
               "    return mean + torch.randn_like(mean)  # error: random-in-pipeline\n"
               "def head(mean, deterministic=False):\n    if not deterministic:\n"
               "        mean = torch.normal(mean, 1.0)\n    return mean\n"
               "def step(obs, explore=False):\n    a = head(obs, deterministic=True)\n"
               "    for i, x in enumerate(obs):\n        a = a + obs[i]\n"
               "    return pick(a, deterministic=True) + pick(a, deterministic=explore)\n")
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


def test_only_tensor_and_counter_state_is_handed_to_generate(tmp_path):
    """A counter, a deque and a dict of tensors are reported; tensors and the counter are declared as state
    (`run` keeps a declared counter only when a call reads it), the deque and the dict are not."""
    snippet = ("import collections\nimport torch\nclass P:\n    def __init__(self):\n        self.h = None\n"
               "        self.count = 0\n        self.frames = collections.deque(maxlen=2)\n"
               "        self.bufs = {'a': torch.zeros(3)}\n"
               "    def step(self, obs):\n        self.count += 1\n        self.frames.append(obs)\n"
               "        out = torch.tanh(obs + self.bufs['a'] + self.frames[0] + (self.h if self.h is not None else 0))\n"
               "        self.bufs['a'][0] = obs[0]\n"
               "        self.h = out * self.count\n        return out\n")
    result = scan_snippet(tmp_path, snippet)
    assert {f.line for f in result.findings if f.category == "inplace-state"} == {10, 11, 13, 14}
    assert [(s.attr, s.kind) for s in result.state] == [("count", "inplace"), ("h", "reassigned")]


SCRATCH_NOT_STATE = {
    # filled element by element before the step reads it: rewritten every call, so an untraced
    # buffer (LCM703), not state
    # (a NumPy buffer: writes into a torch one at fixed places are traced, tests/test_leapp_torch_buffer.py)
    "buffer-filled-then-read": (
        "import numpy as np, torch\nclass P:\n    def __init__(self):\n        self.buf = np.zeros(4, dtype=np.float32)\n"
        "        self.last = torch.zeros(4)\n"
        "    def step(self, obs):\n        for i in range(4):\n            self.buf[i] = obs[i] * 2  # error: inplace-state\n"
        "        out = torch.from_numpy(self.buf) + self.last\n        self.last = out  # error: inplace-state\n"
        "        return out\n"),
    # built by one method and read by a later one in the same call (a distribution object)
    "set-by-one-method-read-by-next": (
        "import torch\nclass Dist:\n    def update(self, mean):\n        self.mean = mean * 2\n        return self\n"
        "    def mode(self):\n        return self.mean\n"
        "class P:\n    def __init__(self):\n        self.dist = Dist()\n"
        "    def step(self, obs):\n        return self.dist.update(obs).mode()\n"),
    # a write under a condition on data may be skipped: the read can see the previous call's value
    "conditional-write-is-state": (
        "import torch\nclass P:\n    def __init__(self):\n        self.held = torch.zeros(4)\n"
        "    def step(self, obs):\n        if obs.sum() > 0:  # error: tensor-branch\n"
        "            self.held = obs * 1.0  # error: inplace-state\n        return self.held + 1\n"),
    # a write under a configuration flag runs on every call or on none: not state
    "config-flag-write-is-scratch": (
        "import torch\nclass P:\n    def __init__(self, use_scale):\n        self.use_scale = use_scale\n"
        "        self.scaled = torch.zeros(4)\n"
        "    def step(self, obs):\n        if self.use_scale:\n            self.scaled = obs * 2\n"
        "        return self.scaled + 1\n"),
    # read before the element writes (a history shift): state
    "shift-register-is-state": (
        "import torch\nclass P:\n    def __init__(self):\n        self.hist = torch.zeros(3, 4)\n"
        "    def step(self, obs):\n        self.hist[:-1] = self.hist[1:].clone()  # error: inplace-state\n"
        "        self.hist[-1] = obs  # error: inplace-state\n        return self.hist.flatten()\n"),
    # a write through a fixed index set (a module constant) leaves the other entries as the last call's
    # accumulation left them
    "index-set-write-is-state": (
        "import numpy as np\nWRIST = [4, 5]\nclass P:\n    def __init__(self):\n        self.pose = np.zeros(6)\n"
        "    def step(self, wrist, delta):\n        self.pose[WRIST] = wrist  # error: inplace-state\n"
        "        self.pose = self.pose + delta  # error: inplace-state\n        return self.pose\n"),
    # a helper reads the attribute only when called without a value; the call that passes one comes first
    "default-none-read-after-the-write": (
        "import torch\nclass P:\n    def __init__(self):\n        self.cmd = torch.zeros(2)\n"
        "    def send(self, cmd=None):\n        if cmd is None:\n            cmd = self.cmd\n        return cmd * 1.0\n"
        "    def step(self, obs):\n        self.send(torch.zeros(2))\n        self.cmd = obs * 2\n"
        "        out = self.send()\n        self.cmd = torch.zeros(2)\n        return out\n"),
    # ... and the same helper called without a value before the write reads the previous call's value
    "default-none-read-before-the-write": (
        "import torch\nclass P:\n    def __init__(self):\n        self.cmd = torch.zeros(2)\n"
        "    def send(self, cmd=None):\n        if cmd is None:\n            cmd = self.cmd\n        return cmd * 1.0\n"
        "    def step(self, obs):\n        out = self.send()\n        self.cmd = obs * 2  # error: inplace-state\n"
        "        return out + self.send(torch.ones(2))\n"),
    # a branch that returns early writes the attribute; the read after the `if` runs only when it does not
    "write-in-an-early-return-branch-covers-nothing-after": (
        "import torch\nclass P:\n    def __init__(self):\n        self.paused = False\n        self.last = torch.zeros(2)\n"
        "    def on_pause(self, msg):\n        self.paused = True\n"
        "    def hold(self):\n        self.last = torch.zeros(2)\n        return self.last\n"
        "    def step(self, obs):\n        if self.paused:\n            return self.hold()\n"
        "        out = obs + self.last\n        self.last = out  # error: inplace-state\n        return out\n"),
}


@pytest.mark.parametrize("name", sorted(SCRATCH_NOT_STATE))
def test_state_needs_a_read_before_an_always_running_write(tmp_path, name):
    snippet = SCRATCH_NOT_STATE[name]
    result = scan_snippet(tmp_path, snippet)
    assert {(f.line, f.category) for f in result.findings} == expected_marks(snippet)
    buffers = {s.attr for s in result.state} & {"scaled", "mean"}
    assert not buffers, f"rewritten every call, declared as state: {buffers}"
    if name == "buffer-filled-then-read":   # untraced as written; declaring it as state makes the writes traced
        assert [f.code for f in result.findings if f.line == 8] == ["LCM703"]
        assert ("buf", "inplace") in {(s.attr, s.kind) for s in result.state}


FIXED_LENGTH = {
    # a list the code path fills a fixed number of times: its length is configuration
    "list-filled-by-config": (
        "import torch\ndef step(x, n_layers=2):\n    feats = []\n    for i in range(n_layers):\n"
        "        feats.append(x * i)\n    if len(feats) > 1:\n        x = x + feats[1]\n    return x\n"),
    # a list filled once per row of the data: its length is the batch size
    "list-filled-per-row": (
        "import torch\ndef step(x):\n    rows = []\n    for row in x:\n        rows.append(row * 2)\n"
        "    if len(rows) > 1:  # error: shape-specialization\n        return torch.stack(rows)\n    return x\n"),
}



RECEIVERS_AND_FLAGS = {
    # the entry's flag parameter keeps its default: the stochastic branch is not the exported pipeline
    "entry-flag-default": (
        "import torch\nclass Dist:\n    def sample(self, mean):\n        return mean + torch.randn_like(mean)\n"
        "class P:\n    def __init__(self):\n        self.dist = Dist()\n"
        "    def step(self, obs, stochastic=False):\n        if stochastic:\n            return self.dist.sample(obs)\n"
        "        return obs * 2\n"),
    # ... unless a caller in the project passes another value
    "entry-flag-passed-by-driver": (
        "import torch\nclass Dist:\n    def sample(self, mean):\n"
        "        return mean + torch.randn_like(mean)  # error: random-in-pipeline\n"
        "class P:\n    def __init__(self):\n        self.dist = Dist()\n"
        "    def step(self, obs, stochastic=False):\n        if stochastic:\n            return self.dist.sample(obs)\n"
        "        return obs * 2\n"
        "def drive(p, obs):\n    return p.step(obs, stochastic=True)\n"),
    # the named entry's class is the receiver: a subclass's override does not run
    "entry-class-is-the-receiver": (
        "import torch\nclass Base:\n    def step(self, x):\n        return self.core(x)\n"
        "    def core(self, x):\n        return x * 2\n"
        "class Recurrent(Base):\n    def __init__(self):\n        self.h = torch.zeros(3)\n"
        "    def core(self, x):\n        self.h = torch.tanh(x + self.h)\n        return self.h\n"),
    # a method of a declared abstract type runs one of its overrides
    "abstract-declared-type-reaches-overrides": (
        "import abc\nimport torch\nclass Dist(abc.ABC):\n    @abc.abstractmethod\n    def draw(self, m):\n"
        "        ...\nclass Noisy(Dist):\n    def draw(self, m):\n"
        "        return m + torch.randn(3)  # error: random-in-pipeline\n"
        "class P:\n    def __init__(self, dist: Dist):\n        self.dist = dist\n"
        "    def step(self, obs):\n        return self.dist.draw(obs)\n"),
    # `**kwargs` fills only the parameters nothing else passes
    "double-star-fills-the-rest": (
        "import torch\ndef helper(x, noisy=False, **extra):\n    if noisy:\n"
        "        return x + torch.randn_like(x)\n    return x\n"
        "def step(obs, **kw):\n    return helper(obs, noisy=False, **kw)\n"),
}


@pytest.mark.parametrize("name", sorted({**FIXED_LENGTH, **RECEIVERS_AND_FLAGS}))
def test_list_lengths_receivers_flags_and_keyword_arguments(tmp_path, name):
    snippet = {**FIXED_LENGTH, **RECEIVERS_AND_FLAGS}[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


def test_naming_the_subclass_entry_reaches_its_override(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text(RECEIVERS_AND_FLAGS["entry-class-is-the-receiver"], encoding="utf-8")
    result = scan_project([str(path)], entry="snippet:Recurrent.step")
    assert [(f.line, f.code) for f in result.findings] == [(11, "LCM702")]


def test_an_object_a_callback_hands_the_message_to_is_a_pipeline_input(tmp_path):
    """`self.joy.set(msg.axes)` in a subscriber: what the step reads from `self.joy` changes between calls,
    so the command buffer it fills is filled with pipeline data (LCM703) and the step's read of it is a value
    filled outside the step (LCM903); a logger the callback calls with constants is not an input."""
    snippet = (
        "import numpy as np\nimport torch\nclass Joy:\n    def __init__(self):\n        self.lx = 0.0\n"
        "    def set(self, data):\n        self.lx = float(data[0])\n"
        "class Node:\n    def __init__(self, sub, log):\n        self.joy = Joy()\n        self.log = log\n"
        "        self.cmd = np.array([0.0, 0.0])\n        self.net = torch.nn.Linear(2, 2)\n"
        "        sub.subscribe('joy', self.on_joy)\n"
        "    def on_joy(self, msg):\n        self.log.debug('joy')\n        self.joy.set(msg.axes)\n"
        "    def step(self):\n        lx = self.joy.lx  # error: io-in-pipeline\n"
        "        self.cmd[0] = lx  # error: inplace-state\n"
        "        self.cmd[1] = self.log.level\n"
        "        return self.net(torch.from_numpy(self.cmd).float())\n")
    result = scan_snippet(tmp_path, snippet)
    assert {(f.line, f.category) for f in result.findings} == expected_marks(snippet)
    assert [f.code for f in result.findings] == ["LCM903", "LCM703"]   # the joystick read, filled by the callback


def test_a_call_too_large_to_walk_keeps_every_write_as_state(tmp_path, monkeypatch):
    """When one call has more statements than the order walk takes, no read may look covered: the
    buffer the step fills before reading it is then in-place state (LCM701), as without the walk."""
    from leapp_codemod.analysis.flow import access_order
    snippet = SCRATCH_NOT_STATE["buffer-filled-then-read"]
    assert [f.code for f in scan_snippet(tmp_path, snippet).findings if f.line == 8] == ["LCM703"]
    monkeypatch.setattr(access_order, "MAX_STATEMENTS", 1)
    assert [f.code for f in scan_snippet(tmp_path, snippet).findings if f.line == 8] == ["LCM701"]


MODULE_FLAGS_AND_LOGGING = {
    # a module-level setting (also under the main guard) rules out the block it guards
    "module-flag-rules-out-a-block": (
        "import torch\nRECORD = False\nclass P:\n    def __init__(self):\n        self.frames = []\n"
        "    def step(self, obs):\n        if RECORD:\n            self.frames.append(obs.item())\n"
        "        return obs * 2\n"
        "if __name__ == '__main__':\n    VERBOSE = False\n"),
    # a flag something rebinds is not a setting
    "rebound-module-flag-is-not-one": (
        "import torch\nRECORD = False\ndef enable():\n    global RECORD\n    RECORD = True\n"
        "def step(obs):\n    if RECORD:\n        return obs.item()  # error: scalar-extraction\n    return obs * 2\n"),
    # a value extracted only to be printed or logged leaves with the I/O the export drops anyway
    "item-only-logged": (
        "import logging\nimport torch\nlog = logging.getLogger(__name__)\n"
        "def step(obs):\n    out = torch.tanh(obs)\n    print(f'max {out.max().item():.3f}')  # error: io-in-pipeline\n"
        "    log.info('mean %f', float(out.mean()))  # error: io-in-pipeline\n    return out\n"),
}


@pytest.mark.parametrize("name", sorted(MODULE_FLAGS_AND_LOGGING))
def test_module_flags_and_values_only_logged(tmp_path, name):
    snippet = MODULE_FLAGS_AND_LOGGING[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)


NO_INPUT_STEPS = {
    # the step takes nothing: its inputs come from a device object on self whose reads the step uses
    "reads-a-device": (
        "import numpy as np\nclass Gripper:\n    def __init__(self, camera, logger):\n        self.camera = camera\n"
        "        self.logger = logger\n"
        "    def step(self):\n        frame = self.camera.grab()\n        self.logger.info('tick')\n"
        "        if frame.mean() > 0.5:  # error: tensor-branch\n            return np.zeros(2)\n"
        "        return np.ones(2)\n"),
    # a project object the step calls is followed as code, not read as an input
    "project-object-is-code": (
        "import numpy as np\nclass Source:\n    def grab(self):\n        return np.ones(3)\n"
        "class Gripper:\n    def __init__(self):\n        self.camera = Source()\n"
        "    def step(self):\n        frame = self.camera.grab()\n"
        "        if frame.mean() > 0.5:\n            return np.zeros(2)\n        return np.ones(2)\n"),
}


@pytest.mark.parametrize("name", sorted(NO_INPUT_STEPS))
def test_a_step_without_inputs_reads_them_from_objects_it_cannot_follow(tmp_path, name):
    snippet = NO_INPUT_STEPS[name]
    assert {(f.line, f.category) for f in scan_snippet(tmp_path, snippet).findings} == expected_marks(snippet)
