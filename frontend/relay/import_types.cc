// Relay types as Relax struct info, and the agreement check between what rlx infers and the
// `/* ty=... */` comments TVM printed (the importer's built-in oracle).
#include "frontend/relay/importer.h"
#include "ir/arith.h"

namespace rlx::relay {

StructInfo TypeConverter::convert(const Type& t, bool defineVars) {
  switch (t.kind) {
    case Type::Tensor: {
      DataType dtype = DataType::void_();
      if (!t.dtype.empty()) {
        auto d = DataType::parse(t.dtype);
        if (!d) throw ImportError("unknown dtype `" + t.dtype + "`", t.span);
        dtype = *d;
      }
      std::vector<PrimExpr> dims;
      for (auto& d : t.shape) {
        if (d.kind == Dim::Int) {
          dims.push_back(intImm(d.value));
        } else if (d.kind == Dim::Meta) {
          const MetaValue* m = d.meta;
          if (m && m->kind == MetaValue::Int && m->value >= 0) {
            dims.push_back(intImm(m->value));
          } else if (m && m->kind == MetaValue::SymVar) {
            auto known = metaVars_.find(m);
            if (known != metaVars_.end()) {
              dims.push_back(known->second);
            } else if (defineVars) {
              auto v = make<PrimVar>(m->name, DataType::int64());  // Relax shapes are int64 (TVM's SizeVar is int32)
              metaVars_[m] = v;
              dims.push_back(v);
            } else {
              return make<TensorSInfo>(nullptr, dtype, int(t.shape.size()));  // not bound by a parameter yet
            }
          } else {
            throw ImportError("a meta[...] dimension must name a tir.SizeVar, tir.Var or IntImm" + (m ? ", not a " + m->typeKey : std::string()),
                              d.span);
          }
        } else if (defineVars) {
          // One fresh symbolic var per `?`, as TVM's translator did ("n", "n1", ...).
          std::string name = next_ == 0 ? "n" : "n" + std::to_string(next_);
          ++next_;
          dims.push_back(make<PrimVar>(name, DataType::int64()));
        } else {
          return make<TensorSInfo>(nullptr, dtype, int(t.shape.size()));
        }
      }
      return tensorSInfo(std::move(dims), dtype);
    }
    case Type::Tuple: {
      std::vector<StructInfo> fields;
      for (auto& f : t.fields) fields.push_back(convert(*f, defineVars));
      return make<TupleSInfo>(std::move(fields));
    }
    case Type::Func: {
      std::vector<StructInfo> params;
      for (auto& f : t.fields) params.push_back(convert(*f, false));
      return make<FuncSInfo>(std::move(params), convert(*t.ret, false), true);
    }
    case Type::Incomplete:
      return objectSInfo();
    case Type::Named:
      throw ImportError("not expressible in Relax: the type `" + str(t) + "` (a type variable or an algebraic data type)", t.span,
                        "Relax has no type parameters and no ADTs");
    case Type::Ref:
      throw ImportError("not expressible in Relax: the reference type `" + str(t) + "`", t.span, "Relax has no mutable reference cells");
  }
  return objectSInfo();
}

std::string TypeConverter::str(const Type& t) {
  auto list = [](const std::vector<TypePtr>& ts) {
    std::string s;
    for (size_t k = 0; k < ts.size(); ++k) s += (k ? ", " : "") + str(*ts[k]);
    return s;
  };
  switch (t.kind) {
    case Type::Tensor: {
      if (t.shape.empty()) return t.dtype;
      std::string s = "Tensor[(";
      for (size_t k = 0; k < t.shape.size(); ++k)
        s += (k ? ", " : "") + (t.shape[k].kind == Dim::Int ? std::to_string(t.shape[k].value) : std::string("?"));
      return s + "), " + t.dtype + "]";
    }
    case Type::Tuple:
      return "(" + list(t.fields) + (t.fields.size() == 1 ? ",)" : ")");
    case Type::Func:
      return "fn (" + list(t.fields) + ") -> " + str(*t.ret);
    case Type::Named:
      return t.fields.empty() ? t.name : t.name + "[" + list(t.fields) + "]";
    case Type::Ref:
      return "ref(" + list(t.fields) + ")";
    case Type::Incomplete:
      return "_";
  }
  return "?";
}

bool TypeConverter::agrees(const StructInfo& s, const Type& t) {
  if (!s) return false;
  switch (t.kind) {
    case Type::Tensor: {
      auto ts = s.as<TensorSInfo>();
      if (!ts) return false;
      if (ts->ndim >= 0 && ts->ndim != int(t.shape.size())) return false;
      if (!t.dtype.empty() && !ts->dtype.isVoid() && ts->dtype.str() != t.dtype) return false;
      if (auto* dims = ts->dims())
        for (size_t k = 0; k < t.shape.size() && k < dims->size(); ++k) {
          if (t.shape[k].kind != Dim::Int) continue;
          auto c = constInt((*dims)[k]);
          if (c && *c != t.shape[k].value) return false;
          // A symbolic extent where TVM printed a number: TVM knew more than rlx.
          if (!c) return false;
        }
      return true;
    }
    case Type::Tuple: {
      auto tu = s.as<TupleSInfo>();
      if (!tu || tu->fields.size() != t.fields.size()) return false;
      for (size_t k = 0; k < t.fields.size(); ++k)
        if (!agrees(tu->fields[k], *t.fields[k])) return false;
      return true;
    }
    case Type::Func: {
      auto f = s.as<FuncSInfo>();
      if (!f) return false;
      if (f->params && f->params->size() != t.fields.size()) return false;
      return !f->ret || agrees(f->ret, *t.ret) || f->ret.as<ObjectSInfo>();
    }
    default:
      return true;  // types rlx refuses anyway, or `_`
  }
}

}  // namespace rlx::relay
