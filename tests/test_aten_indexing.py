"""The indexing semantics of scatter, index, index_put_, _index_put_impl_ and rot90 are in the grids
(each is drawn, so a kernel that gets it wrong meets it), and the sample machinery they need
(`Tensor?[]` lists with None entries, indices without repeats, masks with a known count) works."""

from __future__ import annotations

import math

import torch

from kernelgenbench.suite import registry
from kernelgenbench.suite.aten.family import blank
from kernelgenbench.suite.build import sample
from kernelgenbench.suite.inputs import clone_values, materialize, upcast_value
from kernelgenbench.suite.spec import TensorSpec

OPS = ("scatter", "index", "index_put_", "_index_put_impl_", "rot90")


def values(op_name, overload=None, size=None):
    op = registry.get(op_name)
    return [c.sample.values for c in op.cases
            if (overload is None or c.overload == overload) and (size is None or c.size == size)]


def drawn(op_name, overload=None, seed=3):
    """The small cases' inputs, drawn as the worker draws them."""
    op = registry.get(op_name)
    return [materialize(c.sample.values, seed + i, "cpu") for i, c in enumerate(op.cases)
            if c.size == "small" and (overload is None or c.overload == overload)]


# ---- the sample machinery -------------------------------------------------------------------------

def test_unique_indices_never_repeat_along_their_dim_in_any_layout():
    for layout in ("contiguous", "transposed", "strided"):
        for along in (0, 1, -1):
            spec = TensorSpec((7, 5), torch.int64, layout, "unique", 0, 9, along=along)
            t = materialize({"i": spec}, 11, "cpu")["i"]
            assert t.shape == (7, 5) and int(t.min()) >= 0 and int(t.max()) < 9
            fibers = t.movedim(along, -1).reshape(-1, t.shape[along])
            assert all(len(set(f.tolist())) == f.numel() for f in fibers), (layout, along)
    whole = materialize({"i": TensorSpec((3, 4), torch.int32, dist="unique", low=-12, high=0)}, 5, "cpu")["i"]
    assert whole.dtype == torch.int32 and len(set(whole.reshape(-1).tolist())) == 12 and int(whole.max()) < 0


def test_masks_have_exactly_their_count_of_true_values():
    for n in (0, 1, 17, 40):
        mask = materialize({"m": TensorSpec((5, 8), torch.bool, dist="mask", high=n)}, n, "cpu")["m"]
        assert mask.dtype == torch.bool and mask.shape == (5, 8) and int(mask.sum()) == n
    a, b = (TensorSpec((4,), torch.bool, dist="mask", high=n) for n in (1, 2))
    assert a.describe() != b.describe()  # a case's label (its seed) tells the counts apart


def test_optional_tensor_lists_keep_their_none_entries_everywhere():
    indices = [None, TensorSpec((3,), torch.int64, dist="index", low=0, high=5), None,
               TensorSpec((2, 1), torch.int32, dist="unique", low=0, high=4)]
    s = sample({"self": TensorSpec((2, 5, 3, 4), torch.float32), "indices": indices})
    assert "indices=[None, int64[3], None, int32[2, 1] unique]" in s.label
    got = materialize(s.values, 1, "cpu")["indices"]
    assert got[0] is None and got[2] is None and got[1].shape == (3,) and got[3].dtype == torch.int32
    assert clone_values({"i": got})["i"][0] is None
    assert upcast_value(got)[2] is None
    shape_only = blank(indices, "meta")
    assert shape_only[0] is None and shape_only[1].device.type == "meta"


# ---- the operators --------------------------------------------------------------------------------

def test_records_are_index_family_with_honest_work_kinds_and_modest_grids():
    for name in OPS:
        op = registry.get(name)
        assert op.family == "index"
        assert op.work == ("data" if name == "rot90" else "compute"), name
        for ov in op.overloads:
            small = [c for c in op.cases if c.overload == ov.name and c.size == "small"]
            assert 5 <= len(small) <= 30, (ov.name, len(small))
    assert {ov.returns_alias for ov in registry.get("index_put_").overloads} == {"self"}
    assert {ov.returns_alias for ov in registry.get("_index_put_impl_").overloads} == {"self"}


def _repeats_along(index, dim):
    """Whether some fiber of `index` along `dim` holds a value twice."""
    if index.dim() == 0 or index.numel() == 0:
        return False
    fibers = index.movedim(dim, -1).reshape(-1, index.shape[dim])
    return any(len(set(f.tolist())) < f.numel() for f in fibers)


def test_scatter_draws_every_form_with_distinct_or_repeated_indices_as_its_semantics_need():
    names = {ov.name for ov in registry.get("scatter").overloads}
    assert {"scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce", "scatter.src_out"} <= names
    for ov in ("scatter.src", "scatter.value", "scatter.src_out", "scatter.value_out"):
        for v in values("scatter", ov):
            assert v["index"].dist == "unique" and v["index"].along == v["dim"], ov
        assert not any(_repeats_along(i["index"], i["dim"]) for i in drawn("scatter", ov)), ov
        assert any(v["self"].dtype == torch.int64 for v in values("scatter", ov))
    for ov in ("scatter.reduce", "scatter.value_reduce"):
        assert {v["reduce"] for v in values("scatter", ov)} == {"add", "multiply"}
        assert all(v["index"].dist == "index" for v in values("scatter", ov))
        assert any(_repeats_along(i["index"], i["dim"]) for i in drawn("scatter", ov)), ov
    near_one = [v for v in values("scatter", "scatter.reduce") if v["reduce"] == "multiply"]
    assert all(v["src"].dist == "uniform" and 0 < v["src"].low < 1 < v["src"].high < 2 for v in near_one)
    assert registry.get("scatter").tolerance.abs_scale


def test_index_draws_broadcasting_tensors_none_slots_and_both_index_dtypes():
    lists = [v["indices"] for v in values("index", "index.Tensor")]

    def tensors(ix):
        return [t for t in ix if t is not None]

    assert any(len({t.shape for t in tensors(ix)}) > 1 for ix in lists)  # shapes that broadcast
    assert any(ix[0] is None for ix in lists)
    between = [ix for ix in lists if any(ix[j] is None and ix[j - 1] is not None and
                                         any(t is not None for t in ix[j + 1:]) for j in range(1, len(ix)))]
    assert between  # numpy's rule: the broadcast dims move to the front
    assert {torch.int32, torch.int64} <= {t.dtype for ix in lists for t in tensors(ix)}
    assert any(t.low < 0 for ix in lists for t in tensors(ix))  # negative indices count from the end
    assert any(len(t.shape) >= 2 for ix in lists for t in tensors(ix))
    assert any(t.shape == () for ix in lists for t in tensors(ix))
    assert any(v["self"].layout != "contiguous" for v in values("index"))
    perf = values("index", "index.Tensor", "perf")
    assert any(v["self"].shape == (128256, 4096) for v in perf)
    # the result moves the broadcast dims to the front where a None separates the index tensors
    x = torch.randn(3, 5, 17)
    got = torch.ops.aten.index.Tensor(x, [torch.tensor([0, 2]), None, torch.tensor([1, 4])])
    assert got.shape == (2, 5)


def test_index_draws_bool_masks_whose_count_sizes_the_output():
    masks = [t for v in values("index") for t in v["indices"] if t is not None and t.dtype == torch.bool]
    assert {t.high for t in masks} >= {0, 2}  # none True, and a count that broadcasts with an index tensor
    assert any(len(t.shape) == 2 for t in masks) and any(t.high == math.prod(t.shape) for t in masks)
    assert any(v["indices"][0] is None and any(t is not None and t.dtype == torch.bool for t in v["indices"])
               for v in values("index"))
    op = registry.get("aten::index")
    assert op.size_reads == 1 and "count" in op.notes  # the host reads the True count, once


def _positions(self_shape, indices):
    """The linear positions an index_put_ writes (masks as their True positions)."""
    parts, extents, d = [], [], 0
    for t in indices:
        if t is None:
            d += 1
        elif t.dtype == torch.bool:
            parts.extend(t.nonzero().unbind(1))
            extents.extend(self_shape[d:d + t.dim()])
            d += t.dim()
        else:
            parts.append(t.long() % self_shape[d])
            extents.append(self_shape[d])
            d += 1
    parts = torch.broadcast_tensors(*parts)
    flat = torch.zeros(parts[0].shape, dtype=torch.int64)
    for p, n in zip(parts, extents):
        flat = flat * n + p
    return flat.reshape(-1)


def test_index_put_draws_masks_broadcast_values_and_both_accumulate_modes():
    for name in ("index_put_", "_index_put_impl_"):
        drawn_values = values(name)
        assert {True, False} == {v["accumulate"] for v in drawn_values}
        assert all(v["self"].layout != "expanded" for v in drawn_values)  # written in place
        masks = [v for v in drawn_values if any(t is not None and t.dtype == torch.bool for t in v["indices"])]
        assert masks and any(v["indices"][0] is None for v in masks)
        assert any(v["values"].shape == () for v in masks)
        assert any(len(v["values"].shape) and v["values"].shape[0] > 1 for v in masks)
        assert any(v["values"].shape != () and math.prod(v["values"].shape) == 1 for v in drawn_values)
        assert any(t is not None and t.low < 0 for v in drawn_values for t in v["indices"])
        assert {torch.int32, torch.int64} <= {t.dtype for v in drawn_values for t in v["indices"] if t is not None}
        assert registry.get(name).tolerance.abs_scale
        for inputs in drawn(name):
            if not inputs["accumulate"] and inputs["self"].numel():
                where = _positions(inputs["self"].shape, inputs["indices"])
                assert where.unique().numel() == where.numel(), "accumulate=False draws distinct positions"
        repeated = [where for where in (_positions(i["self"].shape, i["indices"]) for i in drawn(name)
                                        if i["accumulate"] and i["self"].numel())
                    if where.unique().numel() < where.numel()]
        assert repeated, "accumulate=True meets repeated positions"
    assert {True, False} == {v["unsafe"] for v in values("_index_put_impl_")}
    perf = values("index_put_", size="perf")
    assert any(v["self"].shape == (32000, 4096) and v["accumulate"] and v["indices"][0].shape == (8192,)
               for v in perf)


def test_rot90_draws_every_k_over_negative_and_reversed_dims_and_copies_for_k_0_mod_4():
    drawn_values = values("rot90", "rot90")
    assert set(range(-5, 6)) <= {v["k"] for v in drawn_values}
    pairs = [v["dims"] for v in drawn_values]
    assert any(a < 0 or b < 0 for a, b in pairs)
    assert any(a % len(v["self"].shape) > b % len(v["self"].shape) for v, (a, b) in zip(drawn_values, pairs))
    assert {2, 3, 4} <= {len(v["self"].shape) for v in drawn_values}
    assert {"transposed", "strided", "expanded"} <= {v["self"].layout for v in drawn_values}
    assert any(v["self"].shape == (8192, 8192) for v in values("rot90", size="perf"))
    x = torch.randn(3, 4)
    for k in (0, 4, -4):
        r = torch.rot90(x, k, [0, 1])
        assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()  # a clone, not a view
