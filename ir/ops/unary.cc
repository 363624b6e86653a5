// Unary elementwise ops (exp, sqrt, ..., isnan), clip, and the dtype ops astype and wrap_param.
// Output keeps the input's shape; float-only ops reject known integer dtypes as TVM does.
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

void unary(const char* name, bool requireFloat) {
  OpDef(std::string("relax.") + name)
      .params({arg("x")})
      .infer([requireFloat](const Call& c) { return inferUnaryArith(c, requireFloat); })
      .pattern(OpPattern::ElemWise)
      .doc("elementwise " + std::string(name))
      .done();
}

// isfinite/isinf/isnan: same shape, bool result.
void unaryCheck(const char* name) {
  OpDef(std::string("relax.") + name)
      .params({arg("x")})
      .infer([](const Call& c) -> Result<StructInfo> {
        RLX_TRY_OK(checkArgCount(c, 1, 1));
        RLX_TRY(x, tensorArg(c, 0, "x"));
        return withDType(x, DataType::boolean());
      })
      .pattern(OpPattern::ElemWise)
      .doc("elementwise " + std::string(name) + " (bool result)")
      .done();
}

Result<StructInfo> inferClip(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 3));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  for (size_t i = 1; i < 3; ++i) {
    StructInfo s = sinfoOf(c.args[i]);
    if (!s.is<PrimSInfo>() && !c.args[i].is<PrimValue>())
      return opError(c, fmt::format("expects {} to be a prim value, but it is {}", i == 1 ? "min" : "max", sinfoStr(s)));
  }
  return StructInfo(x);
}

Result<StructInfo> inferCastLike(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, c.opName() == "relax.astype" ? "x" : "data"));
  return withDType(x, attrDType(c, "dtype"));
}

}  // namespace

void registerUnaryOps() {
  static const std::pair<const char*, bool> arith[] = {
      {"abs", false},  {"acos", true},  {"acosh", true}, {"asin", true},  {"asinh", true},   {"atan", true},
      {"atanh", true}, {"bitwise_not", false}, {"ceil", false}, {"cos", true},  {"cosh", true}, {"erf", true},
      {"exp", true},   {"floor", false}, {"log", true},  {"negative", false}, {"round", false}, {"rsqrt", true},
      {"sigmoid", true}, {"sign", false}, {"sin", true}, {"sinh", true}, {"sqrt", true}, {"square", false},
      {"tan", true},   {"tanh", true},  {"trunc", false},
  };
  for (auto& [name, f] : arith) unary(name, f);
  // logical_not keeps its input's dtype in TVM (an arithmetic unary op: 1 where x is 0).
  unary("logical_not", false);
  for (const char* name : {"isfinite", "isinf", "isnan"}) unaryCheck(name);
  OpDef("relax.clip")
      .params({arg("x"), arg("min", OpParam::PrimArg), arg("max", OpParam::PrimArg)})
      .infer(inferClip)
      .pattern(OpPattern::ElemWise)
      .doc("clamp values to [min, max]")
      .done();
  OpDef("relax.astype")
      .attrs("relax.attrs.AstypeAttrs")
      .params({arg("x"), reqAttr("dtype", OpParam::DTypeAttr)})
      .infer(inferCastLike)
      .pattern(OpPattern::ElemWise)
      .doc("cast to another dtype")
      .done();
  OpDef("relax.wrap_param")
      .attrs("relax.attrs.WrapParamAttrs")
      .params({arg("data"), attr("dtype", OpParam::DTypeAttr, aDType("float32"))})
      .infer(inferCastLike)
      .pattern(OpPattern::ElemWise)
      .doc("cast a parameter, kept distinct for constant folding")
      .done();
}

}  // namespace rlx
