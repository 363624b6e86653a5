// Shared machinery of the reference evaluator: index iteration, broadcasting, result allocation
// from inferred struct info, argument accessors and dtype conversion.
#include "ir/ops/eval_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rlx::ops {

Shape stridesOf(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (int k = int(shape.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * shape[k + 1];
  return s;
}

int64_t numelOf(const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void forEachIndex(const Shape& shape, const std::function<void(const Shape&, int64_t)>& fn) {
  int64_t n = numelOf(shape);
  if (n == 0) return;
  Shape idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(idx, flat);
    for (int k = int(shape.size()) - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
}

int64_t broadcastOffset(const Shape& outIndex, const Shape& inShape, const Shape& inStrides) {
  size_t lead = outIndex.size() - inShape.size();
  int64_t off = 0;
  for (size_t k = 0; k < inShape.size(); ++k)
    if (inShape[k] != 1) off += outIndex[lead + k] * inStrides[k];
  return off;
}

Error evalError(const Call& call, const std::string& msg) { return opError(call, msg); }

Result<Value> evalSameValue(const Call& call, const std::vector<Value>& args) {
  if (args.size() != 1) return evalError(call, "expects one argument");
  return args[0];
}

Result<AxisDims> axisOrFlattened(const Call& call, const NDArray& x) {
  AxisDims r{x.shape, 0};
  if (attrIsNone(call, "axis")) {
    r.dims = {x.numel()};
  } else {
    RLX_TRY(a, normalizeAxis(call, int(r.dims.size()), attrInt(call, "axis")));
    r.axis = a;
  }
  return r;
}

Result<Shape> broadcastShape(const Call& call, const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t da = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t db = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      return evalError(call, fmt::format("cannot broadcast dimension {} ({} vs {})", k, da, db));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

namespace {

Result<Ref<TensorSInfo>> staticTensor(const Call& call, const StructInfo& s, std::string what) {
  auto t = s ? s.as<TensorSInfo>() : nullptr;
  if (!t) return evalError(call, what + " is not a tensor");
  if (!t->dims()) return evalError(call, what + " has no known shape");
  if (t->dtype.isVoid()) return evalError(call, what + " has no known dtype");
  return t;
}

Result<Shape> staticDims(const Call& call, const TensorSInfo& t) {
  Shape dims;
  for (auto& d : *t.dims()) {
    auto c = asConst(d);
    if (!c) return evalError(call, "the result shape is symbolic (" + primStr(d) + ")");
    dims.push_back(*c);
  }
  return dims;
}

}  // namespace

Result<Shape> resultShape(const Call& call) {
  RLX_TRY(t, staticTensor(call, call.sinfo, "the result"));
  return staticDims(call, *t);
}

Result<DataType> resultDType(const Call& call) {
  RLX_TRY(t, staticTensor(call, call.sinfo, "the result"));
  return t->dtype;
}

NDArrayRef allocTensor(DataType t, Shape shape) { return make<NDArray>(t, std::move(shape)); }

Result<NDArrayRef> newTensor(const Call& call, DataType t, const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) return evalError(call, fmt::format("the result shape has a negative dimension ({})", d));
    if (d > 0 && n > kMaxResultBytes / d) return evalError(call, "the result is too large to evaluate");
    n *= d;
  }
  if (n * std::max(t.bytes(), 1) > kMaxResultBytes) return evalError(call, "the result is too large to evaluate");
  return allocTensor(t, shape);
}

Result<NDArrayRef> allocResult(const Call& call) {
  RLX_TRY(t, staticTensor(call, call.sinfo, "the result"));
  RLX_TRY(dims, staticDims(call, *t));
  return allocTensor(t->dtype, std::move(dims));
}

Result<NDArrayRef> allocResultField(const Call& call, size_t field) {
  auto tup = call.sinfo ? call.sinfo.as<TupleSInfo>() : nullptr;
  if (!tup || field >= tup->fields.size()) return evalError(call, "the result is not a tuple of the expected size");
  RLX_TRY(t, staticTensor(call, tup->fields[field], fmt::format("result field {}", field)));
  RLX_TRY(dims, staticDims(call, *t));
  return allocTensor(t->dtype, std::move(dims));
}

Result<NDArrayRef> tensorValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name) {
  if (i >= args.size()) return evalError(call, fmt::format("missing argument {}", name));
  if (args[i].kind == Value::Prim) return scalarTensor(args[i]);
  if (args[i].kind != Value::Tensor) return evalError(call, fmt::format("expects {} to be a tensor, got {}", name, args[i].describe()));
  return args[i].tensor;
}

Result<std::vector<NDArrayRef>> tensorTupleValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name) {
  if (i >= args.size()) return evalError(call, fmt::format("missing argument {}", name));
  if (args[i].kind != Value::Tuple) return evalError(call, fmt::format("expects {} to be a tuple of tensors, got {}", name, args[i].describe()));
  std::vector<NDArrayRef> out;
  for (auto& f : args[i].fields) {
    if (f.kind != Value::Tensor) return evalError(call, fmt::format("expects {} to hold tensors, got {}", name, f.describe()));
    out.push_back(f.tensor);
  }
  return out;
}

Result<Shape> shapeValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name) {
  if (i >= args.size()) return evalError(call, fmt::format("missing argument {}", name));
  if (args[i].kind == Value::Shape) return args[i].shape;
  if (args[i].kind == Value::Tuple) {  // a tuple of prim values (e.g. strided_slice axes)
    Shape s;
    for (auto& f : args[i].fields) {
      if (f.kind != Value::Prim) return evalError(call, fmt::format("expects {} to be a shape", name));
      s.push_back(f.primInt());
    }
    return s;
  }
  if (args[i].kind == Value::Tensor && args[i].tensor->dtype.isIntegral() && args[i].tensor->shape.size() == 1) {
    Shape s;
    for (int64_t k = 0; k < args[i].tensor->numel(); ++k) s.push_back(args[i].tensor->getInt(k));
    return s;
  }
  return evalError(call, fmt::format("expects {} to be a shape, got {}", name, args[i].describe()));
}

Result<Value> primValueArg(const Call& call, const std::vector<Value>& args, size_t i, const char* name) {
  if (i >= args.size()) return evalError(call, fmt::format("missing argument {}", name));
  const Value& v = args[i];
  if (v.kind == Value::Prim) return v;
  if (v.kind == Value::Tensor && v.tensor->numel() == 1 && v.tensor->shape.empty())
    return v.tensor->dtype.isFloat() ? Value::ofFloat(v.tensor->getDouble(0), v.tensor->dtype) : Value::ofInt(v.tensor->getInt(0), v.tensor->dtype);
  return evalError(call, fmt::format("expects {} to be a prim value, got {}", name, v.describe()));
}

void broadcastBinary(const NDArray& a, const NDArray& b, NDArray& out, bool computeInFloat, const BinaryF& fd, const BinaryI& fi) {
  Shape sa = stridesOf(a.shape), sb = stridesOf(b.shape);
  bool fastSame = a.shape == out.shape && b.shape == out.shape;
  bool outFloat = out.dtype.isFloat();
  forEachIndex(out.shape, [&](const Shape& idx, int64_t flat) {
    int64_t ia = fastSame ? flat : broadcastOffset(idx, a.shape, sa);
    int64_t ib = fastSame ? flat : broadcastOffset(idx, b.shape, sb);
    if (computeInFloat || !fi) {
      double r = fd(a.getDouble(ia), b.getDouble(ib));
      out.setDouble(flat, r);
    } else {
      int64_t r = fi(a.getInt(ia), b.getInt(ib));
      if (outFloat) out.setDouble(flat, double(r));
      else out.setInt(flat, r);
    }
  });
}

void mapUnary(const NDArray& in, NDArray& out, const UnaryF& fd, const UnaryI& fi) {
  int64_t n = in.numel();
  bool useFloat = in.dtype.isFloat() || !fi;
  for (int64_t k = 0; k < n; ++k) {
    if (useFloat) out.setDouble(k, fd(in.getDouble(k)));
    else out.setInt(k, fi(in.getInt(k)));
  }
}

NDArrayRef castTensor(const NDArray& t, DataType to) {
  NDArrayRef out = allocTensor(to, t.shape);
  int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    if (to.isBool()) out->setInt(k, t.dtype.isFloat() ? t.getDouble(k) != 0 : t.getInt(k) != 0);
    else if (to.isFloat()) out->setDouble(k, t.dtype.isFloat() ? t.getDouble(k) : double(t.getInt(k)));
    else out->setInt(k, t.dtype.isFloat() ? saturatingInt(t.getDouble(k)) : t.getInt(k));
  }
  return out;
}

NDArrayRef scalarTensor(const Value& prim) {
  NDArrayRef t = allocTensor(prim.dtype, {});
  if (prim.dtype.isFloat()) t->setDouble(0, prim.f);
  else t->setInt(0, prim.i);
  return t;
}

}  // namespace rlx::ops
