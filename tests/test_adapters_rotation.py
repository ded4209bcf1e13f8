"""The torch Rotation against scipy.spatial.transform.Rotation on random rotations."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation as SciPyRotation

from leapp_codemod.adapters import ADAPTERS, Rotation, mismatch

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

ATOL = 1e-12  # float64 throughout; values are O(1) (angles up to pi, degrees scaled by 180/pi)
SEQUENCES = ["".join(p) for p in itertools.permutations("xyz")] + [a + b + a for a in "xyz" for b in "xyz" if a != b]
SEQUENCES += [s.upper() for s in SEQUENCES]

QUATS = st.one_of(
    hnp.arrays(np.float64, (4,), elements=st.floats(-1, 1)),
    hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.just(4)), elements=st.floats(-1, 1)),
).filter(lambda q: np.all(np.linalg.norm(q, axis=-1) > 0.1))


def check(got, expected, atol=ATOL):
    problem = mismatch(got, expected, 0, atol)
    assert problem is None, problem


def wrapped(angles):
    return (angles + np.pi) % (2 * np.pi) - np.pi


@settings(max_examples=200, deadline=None)
@given(QUATS, st.booleans(), st.booleans())
def test_quaternion_round_trip_and_canonical_cover(q, canonical, scalar_first):
    mine, ref = Rotation.from_quat(q), SciPyRotation.from_quat(q)
    check(mine.as_quat(canonical=canonical, scalar_first=scalar_first),
          ref.as_quat(canonical=canonical, scalar_first=scalar_first))
    check(Rotation.from_quat(q, scalar_first=True).as_quat(), SciPyRotation.from_quat(q, scalar_first=True).as_quat())
    assert mine.single == ref.single


@settings(max_examples=200, deadline=None)
@given(QUATS, st.booleans())
def test_matrix_rotvec_and_magnitude(q, degrees):
    mine, ref = Rotation.from_quat(q), SciPyRotation.from_quat(q)
    check(mine.as_matrix(), ref.as_matrix())
    check(mine.as_rotvec(degrees=degrees), ref.as_rotvec(degrees=degrees), atol=1e-9 if degrees else 1e-11)
    check(mine.magnitude(), ref.magnitude())


@settings(max_examples=200, deadline=None)
@given(QUATS)
def test_from_matrix_of_proper_rotations(q):
    matrix = SciPyRotation.from_quat(q).as_matrix()
    check(Rotation.from_matrix(matrix).as_quat(), SciPyRotation.from_matrix(matrix).as_quat())


@settings(max_examples=200, deadline=None)
@given(st.one_of(hnp.arrays(np.float64, (3,), elements=st.floats(-6, 6)),
                 hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.just(3)), elements=st.floats(-6, 6)),
                 hnp.arrays(np.float64, (3,), elements=st.floats(-1e-3, 1e-3))),  # small-angle series
       st.booleans())
def test_from_rotvec(rotvec, degrees):
    check(Rotation.from_rotvec(rotvec, degrees=degrees).as_quat(),
          SciPyRotation.from_rotvec(rotvec, degrees=degrees).as_quat())


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(
    st.sampled_from(["".join(p) for p in itertools.product("xyz", repeat=n) if all(map(str.__ne__, p, p[1:]))]),
    hnp.arrays(np.float64, st.one_of(st.just((n,)), st.tuples(st.integers(1, 3), st.just(n))),
               elements=st.floats(-200, 200)))), st.booleans(), st.booleans())
def test_from_euler_extrinsic_and_intrinsic(case, upper, degrees):
    seq, angles = case
    seq = seq.upper() if upper else seq
    if not degrees:
        angles = angles / 50
    mine = Rotation.from_euler(seq, angles, degrees=degrees)
    ref = SciPyRotation.from_euler(seq, angles, degrees=degrees)
    check(mine.as_quat(), ref.as_quat())
    assert mine.single == ref.single


def test_from_euler_single_axis_scalar_angle():
    expected = SciPyRotation.from_euler("z", 90, degrees=True).as_quat()
    check(Rotation.from_euler("z", 90, degrees=True).as_quat(), expected)


@settings(max_examples=200, deadline=None)
@given(QUATS, st.sampled_from(SEQUENCES), st.booleans())
def test_as_euler_all_sequences(q, seq, degrees):
    ref = SciPyRotation.from_quat(q)
    expected = ref.as_euler(seq, suppress_warnings=True)
    middle = expected[..., 1]
    # Within 1e-6 of gimbal lock the split between first and third angle is ill-conditioned.
    assume(np.all(np.minimum(np.abs(middle), np.abs(np.abs(middle) - np.pi)) > 1e-6)
           if seq[0].lower() == seq[2].lower() else np.all(np.abs(np.abs(middle) - np.pi / 2) > 1e-6))
    got = Rotation.from_quat(q).as_euler(seq)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert np.max(np.abs(wrapped(got - expected)), initial=0) < 1e-9
    if degrees:
        assert np.allclose(Rotation.from_quat(q).as_euler(seq, degrees=True), np.degrees(got), rtol=0, atol=1e-9)


def test_as_euler_at_gimbal_lock_uses_scipys_convention():
    for seq in ("xyz", "ZYX", "zxz"):
        angles = np.array([[0.3, 0.0, 0.2], [0.3, np.pi / 2, 0.2], [0.1, np.pi, 0.4], [0.3, -np.pi / 2, 0.2]])
        ref = SciPyRotation.from_euler(seq, angles)
        expected = ref.as_euler(seq, suppress_warnings=True)
        got = Rotation.from_quat(ref.as_quat()).as_euler(seq)
        assert np.max(np.abs(wrapped(got - expected))) < 1e-6, seq


@settings(max_examples=200, deadline=None)
@given(QUATS, QUATS, st.data())
def test_apply_inverse_and_composition(p, q, data):
    mine_p, mine_q = Rotation.from_quat(p), Rotation.from_quat(q)
    ref_p, ref_q = SciPyRotation.from_quat(p), SciPyRotation.from_quat(q)
    n = 1 if p.ndim == 1 else p.shape[0]
    shape = data.draw(st.sampled_from([(3,), (n, 3)]))
    vectors = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-10, 10)))
    for inverse in (False, True):
        check(mine_p.apply(vectors, inverse=inverse), ref_p.apply(vectors, inverse=inverse), atol=1e-11)
    check(mine_p.inv().as_quat(), ref_p.inv().as_quat())
    assume(p.ndim == 1 or q.ndim == 1 or p.shape == q.shape)
    check((mine_p * mine_q).as_quat(), (ref_p * ref_q).as_quat())
    check((mine_p * mine_q.inv()).as_matrix(), (ref_p * ref_q.inv()).as_matrix())


@settings(max_examples=200, deadline=None)
@given(QUATS)
def test_float32_torch_input_stays_float32_torch(q):
    mine = Rotation.from_quat(torch.from_numpy(q.astype(np.float32)))
    matrix = mine.as_matrix()
    assert isinstance(matrix, torch.Tensor) and matrix.dtype == torch.float32
    expected = SciPyRotation.from_quat(q.astype(np.float32)).as_matrix()
    assert np.allclose(matrix.numpy(), expected, atol=1e-6)


def test_numpy_input_gives_float64_numpy_like_scipy():
    q = np.array([0.1, 0.2, 0.3, 0.9], dtype=np.float32)
    check(Rotation.from_quat(q).as_matrix(), SciPyRotation.from_quat(q).as_matrix())
    check(Rotation.from_quat(q).magnitude(), SciPyRotation.from_quat(q).magnitude())  # a NumPy scalar


@pytest.mark.parametrize("call, method, argument", [
    (lambda: Rotation.from_quat(np.ones(3)), "__init__", "quat"),
    (lambda: Rotation.from_euler("xx", [0.0, 1.0]), "from_euler", "seq"),
    (lambda: Rotation.from_euler("xYz", [0.0, 1.0, 2.0]), "from_euler", "seq"),
    (lambda: Rotation.from_euler("xyz", [0.0, 1.0]), "from_euler", "angles"),
    (lambda: Rotation.from_matrix(np.diag([1.0, 1.0, -1.0])), "from_matrix", "matrix"),
    (lambda: Rotation.from_matrix(2 * np.eye(3)), "from_matrix", "matrix"),
    (lambda: Rotation.from_quat(np.array([0, 0, 0, 1.0])).as_euler("xy"), "as_euler", "seq"),
    (lambda: Rotation.from_quat(np.ones((2, 4))).apply(np.ones((3, 3))), "apply", "vectors"),
])
def test_out_of_domain_inputs_are_refused(call, method, argument):
    with pytest.raises(ValueError, match=rf"adapter scipy\.spatial\.transform\.Rotation\.{method}: "
                                         rf"unsupported {argument}"):
        call()


def test_registry_exposes_class_constructors_and_methods():
    base = "scipy.spatial.transform.Rotation"
    assert ADAPTERS[base].function is Rotation and ADAPTERS[base].kind == "class"
    for name in ("from_quat", "from_matrix", "from_euler", "from_rotvec"):
        assert ADAPTERS[f"{base}.{name}"].kind == "constructor"
    for name in ("as_quat", "as_matrix", "as_euler", "as_rotvec", "apply", "inv", "__mul__"):
        assert ADAPTERS[f"{base}.{name}"].kind == "method"
    with pytest.raises(ValueError, match="Rotation"):
        ADAPTERS[f"{base}.as_matrix"].check_domain(SciPyRotation.identity())


@settings(max_examples=200, deadline=None)
@given(QUATS, QUATS, st.booleans())
def test_composition_with_a_scipy_rotation_built_elsewhere(q, p, inverse):
    """A SciPy Rotation the application built outside the patched code (a module constant) composes
    with this module's Rotation on either side, inverted or not, single or batched."""
    outside = SciPyRotation.from_quat(p)
    outside = outside.inv() if inverse else outside
    try:
        expected_left, expected_right = outside * SciPyRotation.from_quat(q), SciPyRotation.from_quat(q) * outside
    except ValueError:
        assume(False)       # SciPy refuses the batch shapes too
    got_left, got_right = outside * Rotation.from_quat(q), Rotation.from_quat(q) * outside
    assert isinstance(got_left, Rotation) and isinstance(got_right, Rotation)
    check(got_left.as_quat(canonical=True), expected_left.as_quat(canonical=True), 1e-12)
    check(got_right.as_rotvec(), expected_right.as_rotvec(), 1e-9)


def test_composition_refuses_what_is_not_a_rotation():
    with pytest.raises(TypeError):
        Rotation.from_quat(np.array([0.0, 0.0, 0.0, 1.0])) * np.eye(3)
    with pytest.raises(TypeError):
        2.0 * Rotation.from_quat(np.array([0.0, 0.0, 0.0, 1.0]))
