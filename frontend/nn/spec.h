// ModuleSpec: what exportIR emits: per method, its argument specs (tensors with symbolic dims by
// name, ints, tuples/lists of those), how params are passed (param_mode), and the C++ callable.
#pragma once
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "frontend/nn/error.h"
#include "frontend/nn/tensor.h"

namespace rlx::nn {

class Module;

// A value crossing a method boundary: a Tensor, a symbolic int (PrimExpr) or a tuple of such values,
// nested (method arguments from the spec, method results, tensor_ir_op arguments).
class Nested {
 public:
  enum Kind { TensorKind, PrimKind, TupleKind };
  Nested(Tensor t) : kind_(TensorKind), tensor_(std::move(t)) {}
  Nested(const std::shared_ptr<class Parameter>& p) : Nested(Tensor(p)) {}
  Nested(PrimExpr e) : kind_(PrimKind), prim_(std::move(e)) {}
  Nested(const PrimVarRef& v) : Nested(PrimExpr(v)) {}
  Nested(std::vector<Nested> items) : kind_(TupleKind), items_(std::move(items)) {}
  Nested(const std::vector<Tensor>& ts) : kind_(TupleKind) {
    for (auto& t : ts) items_.emplace_back(t);
  }
  template <typename... Ts>
  Nested(const std::tuple<Ts...>& t) : kind_(TupleKind) {
    std::apply([&](const auto&... x) { (items_.emplace_back(x), ...); }, t);
  }

  Kind kind() const { return kind_; }
  bool isTensor() const { return kind_ == TensorKind; }
  const Tensor& tensor() const;
  const PrimExpr& prim() const;
  const std::vector<Nested>& items() const;
  // The Relax expression: a tensor's expr, a Tuple of the items, or R.prim_value(e).
  Expr expr() const;

 private:
  Kind kind_;
  Tensor tensor_;
  PrimExpr prim_;
  std::vector<Nested> items_;
};

// The spec of one method argument.
class ArgSpec {
 public:
  enum Kind { TensorKind, IntKind, TupleKind };
  static ArgSpec tensor(std::vector<Dim> shape, DType dtype);
  static ArgSpec integer();
  static ArgSpec tuple(std::vector<ArgSpec> items);
  Kind kind() const { return kind_; }
  const std::vector<Dim>& shape() const { return shape_; }
  DataType dtype() const { return dtype_; }
  const std::vector<ArgSpec>& items() const { return items_; }

 private:
  Kind kind_ = TensorKind;
  std::vector<Dim> shape_;
  DataType dtype_;
  std::vector<ArgSpec> items_;
};

// Spelled like TVM's spec module: spec::Tensor({"n", 8}, "float32"), spec::Int(), spec::Tuple({..}).
namespace spec {
inline ArgSpec Tensor(std::vector<Dim> shape, DType dtype) { return ArgSpec::tensor(std::move(shape), dtype); }
inline ArgSpec Int() { return ArgSpec::integer(); }
inline ArgSpec Tuple(std::vector<ArgSpec> items) { return ArgSpec::tuple(std::move(items)); }
inline ArgSpec List(std::vector<ArgSpec> items) { return ArgSpec::tuple(std::move(items)); }
}  // namespace spec

// How a method receives the module's parameters: one arg each (plain), one tuple (packed), none.
enum class ParamMode { Plain, Packed, None };
// How a method receives effect states (IOEffect, KV caches): the same choices.
enum class EffectMode { Plain, Packed, None };

struct MethodOptions {
  ParamMode paramMode = ParamMode::Plain;
  EffectMode effectMode = EffectMode::Plain;
};

using MethodArgs = std::vector<std::pair<std::string, ArgSpec>>;
using MethodFn = std::function<Nested(Module& self, const std::vector<Nested>& args)>;

struct MethodSpec {
  std::string name;
  MethodArgs args;
  MethodFn fn;
  MethodOptions options;
};

namespace detail {
template <typename T>
std::decay_t<T> fromValue(const Nested& v, size_t index) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, rlx::nn::Tensor>) {
    return v.tensor();
  } else if constexpr (std::is_same_v<D, PrimExpr>) {
    return v.prim();
  } else if constexpr (std::is_same_v<D, std::vector<rlx::nn::Tensor>>) {
    std::vector<rlx::nn::Tensor> out;
    for (auto& x : v.items()) out.push_back(x.tensor());
    return out;
  } else if constexpr (std::is_same_v<D, std::vector<Nested>>) {
    return v.items();
  } else {
    static_assert(std::is_same_v<D, Nested>, "method arguments are Tensor, PrimExpr, std::vector<Tensor>, std::vector<Nested> or Nested");
    return v;
  }
}
[[noreturn]] void failArity(size_t expected, size_t given);
}  // namespace detail

class ModuleSpec {
 public:
  // A method given as a callable on the module.
  ModuleSpec& add(std::string name, MethodArgs args, MethodFn fn, MethodOptions options = {});
  // A method given as a member function of M (checked against the exported module's type); its
  // parameters are Tensor, PrimExpr (int specs), std::vector<Tensor> (tuple specs) or Nested.
  template <typename M, typename R, typename... A>
  ModuleSpec& add(std::string name, MethodArgs args, R (M::*method)(A...), MethodOptions options = {}) {
    return add(std::move(name), std::move(args), adapt<M>([method](M& m, auto&&... a) { return (m.*method)(a...); }, std::index_sequence_for<A...>{}, (std::tuple<A...>*)nullptr), options);
  }
  template <typename M, typename R, typename... A>
  ModuleSpec& add(std::string name, MethodArgs args, R (M::*method)(A...) const, MethodOptions options = {}) {
    return add(std::move(name), std::move(args), adapt<M>([method](M& m, auto&&... a) { return (m.*method)(a...); }, std::index_sequence_for<A...>{}, (std::tuple<A...>*)nullptr), options);
  }
  const std::vector<MethodSpec>& methods() const { return methods_; }

 private:
  template <typename M, typename F, size_t... I, typename... A>
  static MethodFn adapt(F f, std::index_sequence<I...>, std::tuple<A...>*) {
    return [f](Module& self, const std::vector<Nested>& vals) -> Nested {
      auto* m = dynamic_cast<M*>(&self);
      if (!m) fail("the exported module is not of the class the method belongs to");
      if (vals.size() != sizeof...(A)) detail::failArity(sizeof...(A), vals.size());
      return Nested(f(*m, detail::fromValue<A>(vals[I], I)...));
    };
  }
  std::vector<MethodSpec> methods_;
};

}  // namespace rlx::nn
