// Nested, ArgSpec and ModuleSpec (see spec.h).
#include "frontend/nn/spec.h"

namespace rlx::nn {

const Tensor& Nested::tensor() const {
  if (kind_ != TensorKind) fail(kind_ == PrimKind ? "expected a tensor, got a symbolic int" : "expected a tensor, got a tuple");
  return tensor_;
}

const PrimExpr& Nested::prim() const {
  if (kind_ != PrimKind) fail(kind_ == TensorKind ? "expected a symbolic int, got a tensor" : "expected a symbolic int, got a tuple");
  return prim_;
}

const std::vector<Nested>& Nested::items() const {
  if (kind_ != TupleKind) fail(kind_ == TensorKind ? "expected a tuple, got a tensor" : "expected a tuple, got a symbolic int");
  return items_;
}

Expr Nested::expr() const {
  switch (kind_) {
    case TensorKind: return tensor_.expr();
    case PrimKind: return make<PrimValue>(prim_);
    case TupleKind: {
      std::vector<Expr> fields;
      for (auto& i : items_) fields.push_back(i.expr());
      return make<Tuple>(std::move(fields));
    }
  }
  return nullptr;
}

ArgSpec ArgSpec::tensor(std::vector<Dim> shape, DType dtype) {
  ArgSpec s;
  s.kind_ = TensorKind;
  s.shape_ = std::move(shape);
  s.dtype_ = dtype;
  return s;
}

ArgSpec ArgSpec::integer() {
  ArgSpec s;
  s.kind_ = IntKind;
  return s;
}

ArgSpec ArgSpec::tuple(std::vector<ArgSpec> items) {
  ArgSpec s;
  s.kind_ = TupleKind;
  s.items_ = std::move(items);
  return s;
}

ModuleSpec& ModuleSpec::add(std::string name, MethodArgs args, MethodFn fn, MethodOptions options) {
  methods_.push_back({std::move(name), std::move(args), std::move(fn), options});
  return *this;
}

namespace detail {
void failArity(size_t expected, size_t given) {
  fail("the method takes " + std::to_string(expected) + " argument(s) but its spec lists " + std::to_string(given));
}
}  // namespace detail

}  // namespace rlx::nn
