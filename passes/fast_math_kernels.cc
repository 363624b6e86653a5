// The FastMath approximations as TIR text: exp by range reduction to 2^n * e^f with a degree-7
// polynomial (Cephes expf), tanh and erf as odd rational functions of x² on a clamped input
// (Eigen's float kernels) — the same approximations TVM's topi fast_* compute, all in float32.
#include "passes/fast_math_kernels.h"

#include <fmt/format.h>

#include "ir/rational_erf_tanh.h"
#include "parser/parser.h"

namespace rlx {

namespace {

std::string f32(double v) { return fmt::format("T.float32({:.17g})", v); }

// Horner evaluation of coeffs[0]*t^k + ... + coeffs[k] as text.
std::string horner(const std::vector<double>& coeffs, const std::string& t) {
  std::string p = f32(coeffs[0]);
  for (size_t i = 1; i < coeffs.size(); ++i) p = "(" + p + " * " + t + " + " + f32(coeffs[i]) + ")";
  return p;
}

std::string clamp(const std::string& x, double lo, double hi) { return "T.max(T.min(" + x + ", " + f32(hi) + "), " + f32(lo) + ")"; }

// `T.Let(body, where={v: value})` chains: lets[i] = {name, value}, innermost last.
std::string withLets(const std::vector<std::pair<std::string, std::string>>& lets, std::string body) {
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = "T.Let(" + body + ", where={" + it->first + ": " + it->second + "})";
  return body;
}

// x * P(x^2) / Q(x^2) on x clamped to the function's range, with its let vars.
std::string oddRational(const rational::OddRational& f, const std::string& x, std::vector<std::string>& letVars) {
  letVars = {"c", "x2"};
  std::string p = horner({f.p, f.p + f.pSize}, "x2"), q = horner({f.q, f.q + f.qSize}, "x2");
  return withLets({{"c", clamp(x, -f.clamp, f.clamp)}, {"x2", "c * c"}}, "c * " + p + " / " + q);
}

// The scalar expression for one element `x` and the let vars it declares.
std::string elementExpr(FastKernel kind, const std::string& x, std::vector<std::string>& letVars) {
  switch (kind) {
    case FastKernel::Exp: {
      // exp(x) = 2^n * e^f with n = floor(x*log2(e) + 1/2), f = x - n*ln(2); e^f by a polynomial;
      // 2^n built from the exponent bits. max(.., x) keeps exp(x) >= x for large inputs.
      letVars = {"c", "n", "f"};
      std::string poly = "(" + horner({1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1}, "f") + " * f * f + f + " + f32(1) + ")";
      std::string pow2 = "T.reinterpret(\"float32\", T.shift_left(T.Cast(\"int32\", n + " + f32(127) + "), 23))";
      return withLets({{"c", clamp(x, -88.3762626647949, 88.3762626647950)}, {"n", "T.floor(c * " + f32(1.44269504088896341) + " + " + f32(0.5) + ")"}, {"f", "c - n * " + f32(0.6931471805599453)}},
                      "T.max(" + pow2 + " * " + poly + ", " + x + ")");
    }
    case FastKernel::Tanh: return oddRational(rational::kTanh, x, letVars);
    case FastKernel::Erf: return oddRational(rational::kErf, x, letVars);
  }
  return x;
}

}  // namespace

const char* fastKernelBaseName(FastKernel kind) {
  switch (kind) {
    case FastKernel::Exp: return "fast_exp";
    case FastKernel::Tanh: return "fast_tanh";
    case FastKernel::Erf: return "fast_erf";
  }
  return "fast";
}

Result<Expr> makeFastKernel(FastKernel kind, const std::vector<PrimExpr>& dims, const std::string& name) {
  // Shape text: constants as T.int64(c); anything symbolic becomes a kernel shape var.
  std::vector<std::string> shape, symbolic;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (auto c = dims[i].as<IntImm>()) {
      shape.push_back(fmt::format("T.int64({})", c->value));
    } else {
      auto v = dims[i].as<PrimVar>();
      std::string n = v ? v->name : fmt::format("d{}", i);
      for (auto& s : symbolic)
        if (s == n) n = fmt::format("d{}", i);
      symbolic.push_back(n);
      shape.push_back(n);
    }
  }
  std::string shapeText = "(";
  for (size_t i = 0; i < shape.size(); ++i) shapeText += (i ? ", " : "") + shape[i];
  shapeText += shape.size() == 1 ? ",)" : ")";

  std::string t = "@I.ir_module\nclass Module:\n    @T.prim_func(private=True)\n";
  std::string ind = "        ";
  if (symbolic.empty()) {
    t += fmt::format("    def {}(x: T.Buffer({}, \"float32\"), compute: T.Buffer({}, \"float32\")):\n", name, shapeText, shapeText);
    t += ind + "T.func_attr({\"tir.noalias\": True})\n";
  } else {
    t += fmt::format("    def {}(var_x: T.handle, var_compute: T.handle):\n", name);
    t += ind + "T.func_attr({\"tir.noalias\": True})\n";
    for (auto& s : symbolic) t += ind + s + " = T.int64()\n";
    t += ind + fmt::format("x = T.match_buffer(var_x, {})\n", shapeText);
    t += ind + fmt::format("compute = T.match_buffer(var_compute, {})\n", shapeText);
  }
  std::string idx, loops, iters, kinds;
  for (size_t i = 0; i < dims.size(); ++i) {
    idx += fmt::format("{}v_i{}", i ? ", " : "", i);
    loops += fmt::format("{}i{}", i ? ", " : "", i);
    kinds += "S";
  }
  std::string elem = "x[" + (dims.empty() ? std::string("()") : idx) + "]";
  std::string out = "compute[" + (dims.empty() ? std::string("()") : idx) + "]";
  std::string body = ind;
  if (!dims.empty()) {
    t += ind + fmt::format("for {} in T.grid({}):\n", loops, shapeText.substr(1, shapeText.size() - 2 - (shape.size() == 1)));
    body += "    ";
  }
  t += body + "with T.block(\"compute\"):\n";
  std::string inner = body + "    ";
  if (!dims.empty()) t += inner + fmt::format("{} = T.axis.remap(\"{}\", [{}])\n", idx, kinds, loops);
  t += inner + "T.reads(" + elem + ")\n" + inner + "T.writes(" + out + ")\n";
  std::vector<std::string> letVars;
  std::string expr = elementExpr(kind, elem, letVars);
  for (auto& v : letVars) t += inner + v + " = T.float32()\n";
  t += inner + out + " = " + expr + "\n";

  DiagnosticEngine diag;
  IRModuleRef mod = parseModule(t, "<FastMath kernel>", diag);
  if (!mod) return Error("internal error: the FastMath kernel did not parse:\n" + t);
  return mod->lookup(name);
}

}  // namespace rlx
