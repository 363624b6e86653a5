// The packed functions ops legalize to (TVM's FCallPacked): relax.run.print and
// relax.run.assert_op, formatting their values into a Python-style "{}" format string.
#include <fmt/format.h>

#include "runtime/format.h"
#include "runtime/vm.h"

namespace rlx::vm {

namespace {

// Python's str.format for the "{}" and "{N}" fields the format strings use ("{{" escapes).
std::string pyFormat(const std::string& format, const Value* values, int64_t n) {
  std::string out;
  int64_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    size_t close = c == '{' ? format.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += c;
      continue;
    }
    std::string field = format.substr(i + 1, close - i - 1);
    int64_t index = field.empty() ? next++ : std::atoll(field.c_str());
    out += index >= 0 && index < n ? formatValue(values[index]) : "{" + field + "}";
    i = close;
  }
  return out;
}

const std::string& formatArg(const Value& v, const char* fn) {
  if (v.kind != Value::Str) throwVMError(fmt::format("{}: the format must be a string, got {}", fn, v.describe()));
  return v.str();
}

// relax.run.print(format, values...).
Value print(VirtualMachine& vm, const Value* args, int64_t n) {
  if (n < 1) throwVMError("relax.run.print expects a format string");
  const std::string& format = formatArg(args[0], "relax.run.print");
  std::string text = format.empty() ? "" : pyFormat(format, args + 1, n - 1);
  if (format.empty())
    for (int64_t k = 1; k < n; ++k) text += (k > 1 ? " " : "") + formatValue(args[k]);
  vm.print(text + "\n");
  return Value();
}

// relax.run.assert_op(condition, format, values...): a false condition fails the run.
Value assertOp(VirtualMachine&, const Value* args, int64_t n) {
  if (n < 2) throwVMError("relax.run.assert_op expects a condition and a format string");
  const Value& c = args[0];
  bool ok;
  if (c.kind == Value::Int) ok = c.i != 0;
  else if (c.kind == Value::Tensor && c.array->numel() == 1) ok = c.array->getDouble(0) != 0;
  else throwVMError(fmt::format("R.assert_op: the condition must be a scalar, got {}", c.describe()));
  if (!ok) {
    const std::string& format = formatArg(args[1], "relax.run.assert_op");
    throwVMError("assertion failed: " + (format.empty() ? std::string("R.assert_op") : pyFormat(format, args + 2, n - 2)));
  }
  return Value();
}

}  // namespace

void registerRunBuiltins() {
  registerPackedFunction("relax.run.print", print);
  registerPackedFunction("relax.run.assert_op", assertOp);
}

}  // namespace rlx::vm
