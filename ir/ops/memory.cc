// Lowering-level ops emitted by the VM build pipeline: builtin.alloc_tensor/stop_lift_params,
// memory.* (storage planning, views, kills) and vm.* (storage, tensors, kill_object, call_tir_dyn).
#include <optional>
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<DataType> dtypeArg(const Call& c, size_t i) {
  if (i < c.args.size())
    if (auto d = c.args[i].as<DataTypeImm>()) return d->value;
  return opError(c, fmt::format("expects argument {} to be a dtype (R.dtype(..))", i + 1));
}

// A tensor whose shape is the shape argument (ShapeExpr → dims, shape var → that var).
Result<StructInfo> tensorOfShape(const Call& c, size_t shapeIdx, size_t dtypeIdx) {
  RLX_TRY(s, shapeArg(c, shapeIdx, "shape"));
  RLX_TRY(t, dtypeArg(c, dtypeIdx));
  if (auto se = c.args[shapeIdx].as<ShapeExpr>()) return makeTensor(se->values, t, "");
  return StructInfo(make<TensorSInfo>(c.args[shapeIdx], t, s->ndim, ""));
}

Result<StructInfo> inferStorage(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 4, 4));
  RLX_TRY(s, shapeArg(c, 0, "size"));
  return objectSInfo();
}

Result<StructInfo> inferKill(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  return voidSInfo();
}

bool isVoidArg(const Expr& e) {
  auto t = e.as<Tuple>();
  return (t && t->fields.empty()) || isVoidSInfo(sinfoOf(e));
}

Result<StructInfo> inferView(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 4, 4));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  Expr shape = x->shape;
  int ndim = x->ndim;
  if (!isVoidArg(c.args[1])) {
    RLX_TRY(s, shapeArg(c, 1, "shape"));
    shape = c.args[1];
    ndim = s->ndim;
  }
  DataType t = x->dtype;
  if (!isVoidArg(c.args[2])) {
    // A dtype only known at run time (an R.Object value) leaves the view's dtype unknown.
    if (!c.args[2].is<DataTypeImm>() && sinfoOf(c.args[2]).is<ObjectSInfo>()) {
      t = DataType::void_();
    } else {
      RLX_TRY(d, dtypeArg(c, 2));
      t = d;
    }
  }
  if (!isVoidArg(c.args[3])) {
    StructInfo o = sinfoOf(c.args[3]);
    if (!c.args[3].is<PrimValue>() && !o.is<PrimSInfo>()) return opError(c, fmt::format("expects relative_byte_offset to be a prim value, but it is {}", sinfoStr(o)));
  }
  // A view must fit in its source (TVM's checks, also made by the evaluator at run time): its
  // bytes past the offset may not provably exceed the source's, and a non-zero offset on a source
  // of unknown size needs an explicit shape.
  std::optional<int64_t> offset;
  if (auto pv = c.args[3].as<PrimValue>()) offset = asConst(pv->value);
  auto sourceDims = x->dims();
  auto viewShape = shape.as<ShapeExpr>();
  // Sizes in bytes, or in elements when neither side names a dtype (the same unknown one).
  bool comparable = (!x->dtype.isVoid() && !t.isVoid()) || (x->dtype.isVoid() && t.isVoid());
  if (sourceDims && viewShape && comparable) {
    auto bytes = [](const std::vector<PrimExpr>& dims, DataType d) {
      PrimExpr n = i64(d.isVoid() ? 1 : (d.bits * d.lanes + 7) / 8);
      for (auto& k : dims) n = mul(n, k);
      return simplify(n);
    };
    PrimExpr view = bytes(viewShape->values, t), source = bytes(*sourceDims, x->dtype);
    auto over = asConst(simplifyWithShapeFacts(sub(add(view, i64(offset.value_or(0))), source)));
    if (over && *over > 0) {
      const char* unit = t.isVoid() ? "elements" : "bytes";
      return opError(c, fmt::format("the view of {} {} at byte offset {} exceeds the {} {} of the data", primStr(view), unit, offset.value_or(0), primStr(source), unit));
    }
  } else if (isVoidArg(c.args[1]) && offset && *offset != 0) {
    return opError(c, fmt::format("a view at a non-zero relative_byte_offset ({}) of data of unknown size needs its shape", *offset));
  }
  if (auto se = shape.as<ShapeExpr>()) return makeTensor(se->values, t, x->vdevice);
  return StructInfo(make<TensorSInfo>(shape, t, ndim, x->vdevice));
}

// R.memory.view(data, shape=None, dtype=None, relative_byte_offset=None): absent ones are R.tuple().
Result<Expr> buildView(const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) {
  std::string label = op.scriptName();
  RLX_TRY(p, bindPy(label, {"data", "shape", "dtype", "relative_byte_offset"}, 1, args, kwargs));
  auto none = [] {
    auto t = make<Tuple>(std::vector<Expr>{});
    t->sinfo = voidSInfo();
    return Expr(t);
  };
  RLX_TRY(data, toExpr(*p[0], label + " data"));
  std::vector<Expr> callArgs = {data};
  if (p[1] && p[1]->kind != PyValue::None) {
    RLX_TRY(s, toShapeExpr(*p[1], label + " shape"));
    callArgs.push_back(s);
  } else {
    callArgs.push_back(none());
  }
  if (p[2] && p[2]->kind != PyValue::None) {
    Expr d;
    if (p[2]->kind == PyValue::Str) {
      auto t = DataType::parse(p[2]->s);
      if (!t) return Error(fmt::format("{}: unknown dtype \"{}\"", label, p[2]->s));
      d = make<DataTypeImm>(*t);
      d->sinfo = objectSInfo();
    } else {
      RLX_TRY(e, toExpr(*p[2], label + " dtype"));
      d = e;
    }
    callArgs.push_back(d);
  } else {
    callArgs.push_back(none());
  }
  if (p[3] && p[3]->kind != PyValue::None) {
    RLX_TRY(o, toPrimValue(*p[3], label + " relative_byte_offset"));
    callArgs.push_back(o);
  } else {
    callArgs.push_back(none());
  }
  return Expr(make<Call>(opRef(op.name), std::move(callArgs), nullptr, std::vector<StructInfo>{}));
}

}  // namespace

void registerMemoryOps() {
  OpDef("relax.builtin.alloc_tensor")
      .params({arg("shape", OpParam::ShapeArg), arg("dtype", OpParam::DTypeArg), arg("runtime_device_index", OpParam::PrimArg), optArg("storage_scope", OpParam::StrArg)})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 3) {
          auto s = make<StringImm>("global");
          s->sinfo = objectSInfo();
          c.args.push_back(s);
        }
        return okStatus();
      })
      .infer([](const Call& c) -> Result<StructInfo> {
        // The shape is an R.shape([..]) until VMShapeLower turns a symbolic one into a shape var.
        RLX_TRY_OK(checkArgCount(c, 4, 4));
        return tensorOfShape(c, 0, 1);
      })
      .doc("allocate a tensor (before memory planning)")
      .done();
  OpDef("relax.builtin.stop_lift_params").params({arg("x")}).infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, 1, 1));
    return sinfoOf(c.args[0]);
  }).doc("barrier for LiftTransformParams").done();
  OpDef("relax.memory.alloc_storage")
      .params({arg("size", OpParam::ShapeArg), arg("virtual_device_index", OpParam::PrimArg), arg("storage_scope", OpParam::StrArg), arg("dtype", OpParam::DTypeArg)})
      .infer(inferStorage)
      .doc("allocate a storage block")
      .done();
  OpDef("relax.memory.alloc_tensor")
      .params({arg("storage"), arg("offset", OpParam::PrimArg), arg("shape", OpParam::ShapeArg), arg("dtype", OpParam::DTypeArg), optArg("runtime_device_index", OpParam::PrimArg)})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 4) c.args.push_back(primValue(0));
        return okStatus();
      })
      .infer([](const Call& c) -> Result<StructInfo> {
        RLX_TRY_OK(checkArgCount(c, 4, 5));
        return tensorOfShape(c, 2, 3);
      })
      .doc("a tensor inside a storage block")
      .done();
  OpDef("relax.memory.kill_storage").params({arg("storage")}).infer(inferKill).impure().doc("free a storage block").done();
  OpDef("relax.memory.kill_tensor").params({arg("tensor")}).infer(inferKill).impure().doc("free a tensor").done();
  OpDef("relax.memory.view").build(buildView).infer(inferView).doc("reinterpret a tensor without copying").done();
  OpDef("relax.memory.ensure_zero_offset").params({arg("data")}).infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, 1, 1));
    RLX_TRY(x, tensorArg(c, 0, "data"));
    return StructInfo(x);
  }).doc("copy if the tensor has a non-zero byte offset").done();
  OpDef("relax.vm.alloc_storage")
      .params({arg("size", OpParam::ShapeArg), arg("runtime_device_index", OpParam::PrimArg), arg("dtype", OpParam::DTypeArg), optArg("storage_scope", OpParam::StrArg)})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 3) {
          auto s = make<StringImm>("global");
          s->sinfo = objectSInfo();
          c.args.push_back(s);
        }
        return okStatus();
      })
      .infer(inferStorage)
      .doc("VM storage allocation")
      .done();
  OpDef("relax.vm.alloc_tensor")
      .params({arg("storage"), arg("offset", OpParam::PrimArg), arg("shape", OpParam::ShapeArg), arg("dtype", OpParam::DTypeArg), optArg("runtime_device_index", OpParam::PrimArg)})
      .fixup([](Call& c) -> Status {
        if (c.args.size() == 4) c.args.push_back(primValue(0));
        return okStatus();
      })
      .infer([](const Call& c) -> Result<StructInfo> {
        // Unlike memory.alloc_tensor, a shape var contributes its known values or just its ndim.
        RLX_TRY_OK(checkArgCount(c, 4, 5));
        RLX_TRY(sh, shapeArg(c, 2, "shape"));
        RLX_TRY(t, dtypeArg(c, 3));
        if (auto se = c.args[2].as<ShapeExpr>()) return makeTensor(se->values, t, "");
        if (sh->values) return makeTensor(*sh->values, t, "");
        return makeTensorNdim(t, sh->ndim, "");
      })
      .doc("VM tensor inside a storage")
      .done();
  OpDef("relax.vm.kill_object").params({arg("obj")}).infer(inferKill).impure().doc("release a VM object").done();
  OpDef("relax.vm.call_tir_dyn").params({arg("func"), arg("args", OpParam::TupleOfExpr)}).infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, 2, 2));
    return voidSInfo();
  }).impure().doc("call a PrimFunc with outputs and symbolic shape values appended").done();
}

}  // namespace rlx
