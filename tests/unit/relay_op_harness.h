// A test Emitter for the Relay op conversions: input vars with tensor struct info, conversions run
// through the real table (findConverter), bindings collected by rlx's BlockBuilder into a `main`
// that can be printed or run on the reference evaluator.
#pragma once
#include <string>
#include <vector>

#include "frontend/relay/convert.h"
#include "ir/block_builder.h"
#include "ir/eval_function.h"
#include "ir/module.h"
#include "printer/printer.h"

namespace rlx::test {

// Relay attribute values as the reader builds them.
inline relay::AttrValue rInt(int64_t v) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::Int;
  a.i = v;
  a.dtype = "int32";
  return a;
}
inline relay::AttrValue rFloat(double v) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::Float;
  a.f = v;
  a.dtype = "float32";
  return a;
}
inline relay::AttrValue rBool(bool v) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::Bool;
  a.b = v;
  return a;
}
inline relay::AttrValue rStr(std::string v) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::String;
  a.s = std::move(v);
  return a;
}
inline relay::AttrValue rNone() { return relay::AttrValue{}; }
inline relay::AttrValue rArr(std::vector<relay::AttrValue> items) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::Array;
  a.items = std::move(items);
  return a;
}
inline relay::AttrValue rInts(const std::vector<int64_t>& v) {
  std::vector<relay::AttrValue> items;
  for (auto x : v) items.push_back(rInt(x));
  return rArr(std::move(items));
}
inline relay::AttrValue rMeta(std::string key, int64_t index) {
  relay::AttrValue a;
  a.kind = relay::AttrValue::Meta;
  a.s = std::move(key);
  a.index = index;
  return a;
}

// A constant argument (Relay's literals and meta constants arrive as Relax constants).
inline Expr rConst(const char* dtype, std::vector<int64_t> shape, std::vector<double> values) {
  auto a = make<NDArray>(*DataType::parse(dtype), shape);
  for (size_t k = 0; k < values.size(); ++k) a->setDouble(int64_t(k), values[k]);
  auto c = make<Constant>(a);
  std::vector<PrimExpr> dims;
  for (auto d : shape) dims.push_back(intImm(d));
  c->sinfo = tensorSInfo(std::move(dims), a->dtype);
  return c;
}

struct RelayHarness : relay::Emitter {
  BlockBuilder bb;
  std::vector<VarRef> params;
  relay::MetaTable meta;

  RelayHarness() {
    bb.beginFunction();
    bb.beginBlock(false);
  }

  Expr emit(const Expr& e, Span span) override {
    auto n = bb.normalize(e);
    if (!n.ok()) throw relay::ImportError(n.error().message, span);
    if (isAtomExpr(n.value())) return n.value();
    auto v = bb.emit(n.value(), "", span);
    if (!v.ok()) throw relay::ImportError(v.error().message, span);
    return v.value();
  }

  const relay::MetaValue* lookupMeta(const std::string& key, int64_t index) override {
    auto it = meta.find(key);
    if (it == meta.end() || index < 0 || size_t(index) >= it->second.size()) return nullptr;
    return &it->second[size_t(index)];
  }

  VarRef input(const char* name, std::vector<PrimExpr> dims, const char* dtype = "float32") {
    auto v = make<Var>(name, tensorSInfo(std::move(dims), *DataType::parse(dtype)));
    params.push_back(v);
    return v;
  }
  VarRef input(const char* name, std::initializer_list<int64_t> shape, const char* dtype = "float32") {
    std::vector<PrimExpr> dims;
    for (auto d : shape) dims.push_back(intImm(d));
    return input(name, std::move(dims), dtype);
  }

  // Converts the Relay call `op(args, attrs)` (throws ImportError like the importer would).
  Expr convert(const std::string& op, std::vector<Expr> args, const relay::Attrs& attrs = {}) {
    std::string why;
    relay::Converter fn = relay::findConverter(op, &why);
    if (!fn) throw relay::ImportError("no conversion for " + op + (why.empty() ? "" : ": " + why), Span{});
    relay::OpCtx ctx(*this, op, std::move(args), attrs, Span{});
    return fn(ctx);
  }

  // `main(params)` returning `result`, closing the block (call once).
  FunctionRef finish(const Expr& result) {
    std::vector<BlockRef> blocks;
    if (auto block = bb.endBlock()) blocks.push_back(block);
    auto body = make<SeqExpr>(std::move(blocks), result);
    body->sinfo = sinfoOf(result);
    return make<Function>(params, Expr(body), eraseToSignature(sinfoOf(result), params), true, AttrsRef());
  }
  std::string print(const Expr& result) { return printFunction(Expr(finish(result)), "main"); }

  // Runs `main` on the reference evaluator.
  Result<Value> run(const Expr& result, const std::vector<Value>& inputs) {
    auto mod = make<IRModule>();
    mod->functions.push_back({make<GlobalVar>("main"), Expr(finish(result))});
    return evaluateFunction(*mod, "main", inputs);
  }
};

// The message (and hint, after " | ") of the ImportError converting `op`, or "ok".
inline std::string relayError(RelayHarness& h, const std::string& op, std::vector<Expr> args, const relay::Attrs& attrs = {}) {
  try {
    h.convert(op, std::move(args), attrs);
    return "ok";
  } catch (const relay::ImportError& e) {
    return std::string(e.what()) + (e.hint.empty() ? "" : " | " + e.hint);
  }
}

// The function body as printed: binding and return lines, without the header or indentation.
inline std::string printedBody(RelayHarness& h, const Expr& result) {
  std::string text = h.print(result), out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("    ", 0) != 0) continue;
    out += (out.empty() ? "" : "\n") + line.substr(4);
  }
  return out;
}

}  // namespace rlx::test
