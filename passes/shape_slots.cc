// Shape-heap slots of a function and the shape_func kernel that fills composite slots (see
// shape_slots.h); the visiting order decides the slot numbers TVM prints.
#include "passes/shape_slots.h"

#include <fmt/format.h>

#include "ir/arith.h"
#include "parser/build_tir.h"
#include "printer/printer.h"

namespace rlx {

Result<ShapeSlots> ShapeSlots::collect(const Function& func) {
  ShapeSlots s;
  for (auto& p : func.params) s.addSInfo(p->sinfo);
  s.addExpr(func.body);
  s.addSInfo(func.retSInfo);
  // Which composites each var unlocks. TVM walks a hash map here; walking from the last slot to
  // the first reproduces its order (the order the composites are computed in) on the references.
  for (int i = s.size() - 1; i >= 0; --i) {
    ShapeSlot& slot = s.slots_[i];
    if (slot.expr.is<PrimVar>()) continue;
    std::vector<PrimVarRef> vars;
    collectVars(slot.expr, vars);
    for (auto& v : vars) {
      ShapeSlot* vs = s.find(v);
      if (!vs) return Error(fmt::format("Var {} is not defined in the function but is referenced by {}", v->name, printPrimExpr(slot.expr)));
      vs->users.push_back(i);
    }
    slot.outstanding = int(vars.size());
  }
  return s;
}

ShapeSlot* ShapeSlots::find(const PrimExpr& e) {
  for (auto& slot : slots_)
    if (exprDeepEqual(slot.expr, e)) return &slot;
  return nullptr;
}

void ShapeSlots::add(const PrimExpr& e) {
  if (!e || asIntImm(e) || find(e)) return;
  slots_.push_back({e, size(), {}, 0, false});
}

void ShapeSlots::addSInfo(const StructInfo& s) {
  if (!s) return;
  if (auto p = s.as<PrimSInfo>()) {
    add(p->value);
  } else if (auto sh = s.as<ShapeSInfo>()) {
    if (sh->values)
      for (auto& v : *sh->values) add(v);
  } else if (auto t = s.as<TensorSInfo>()) {
    if (t->shape) addExpr(t->shape);
  } else if (auto tup = s.as<TupleSInfo>()) {
    for (auto& f : tup->fields) addSInfo(f);
  }
  // Function struct info is self-contained: its vars are not this function's.
}

void ShapeSlots::addExpr(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::Call: {
      auto& c = static_cast<const Call&>(*e);
      for (auto& s : c.sinfoArgs) addSInfo(s);
      for (auto& a : c.args) addExpr(a);
      return;
    }
    case NodeKind::ShapeExpr:
      for (auto& v : static_cast<const ShapeExpr&>(*e).values) add(v);
      return;
    case NodeKind::PrimValue: add(static_cast<const PrimValue&>(*e).value); return;
    case NodeKind::Tuple:
      for (auto& f : static_cast<const Tuple&>(*e).fields) addExpr(f);
      return;
    case NodeKind::TupleGetItem: addExpr(static_cast<const TupleGetItem&>(*e).tuple); return;
    case NodeKind::If: {
      auto& i = static_cast<const If&>(*e);
      addExpr(i.cond);
      addExpr(i.thenBranch);
      addExpr(i.elseBranch);
      return;
    }
    case NodeKind::SeqExpr: {
      auto& s = static_cast<const SeqExpr&>(*e);
      for (auto& b : s.blocks)
        for (auto& binding : b->bindings) {
          // A match_cast defines the vars of its target; its value is a var.
          if (binding->isMatchCast()) addSInfo(binding->castSInfo);
          else addExpr(binding->value);
        }
      addExpr(s.body);
      return;
    }
    default: return;  // leaves, and nested functions (self-contained)
  }
}

namespace {

// `e` with every var replaced by its heap load; no simplification, so the kernel shows the
// expression as the shapes spell it.
PrimExpr loadVars(const PrimExpr& e, ShapeSlots& slots, const BufferRef& heap) {
  if (e.is<PrimVar>()) {
    ShapeSlot* s = slots.find(e);
    return make<BufferLoad>(DataType::int64(), heap, std::vector<PrimExpr>{intImm(s->index)});
  }
  if (auto b = e.as<PrimBinary>()) return make<PrimBinary>(b->kind(), b->dtype, loadVars(b->a, slots, heap), loadVars(b->b, slots, heap));
  if (auto n = e.as<PrimNot>()) return make<PrimNot>(loadVars(n->a, slots, heap));
  if (auto s = e.as<Select>()) return make<Select>(loadVars(s->cond, slots, heap), loadVars(s->trueValue, slots, heap), loadVars(s->falseValue, slots, heap));
  if (auto c = e.as<Cast>()) return make<Cast>(c->dtype, loadVars(c->value, slots, heap));
  if (auto c = e.as<PrimCall>()) {
    std::vector<PrimExpr> args;
    for (auto& a : c->args) args.push_back(loadVars(a, slots, heap));
    return make<PrimCall>(c->dtype, c->op, std::move(args));
  }
  return e;
}

}  // namespace

PrimFuncRef makeShapeFunc(ShapeSlots& slots, const std::vector<int>& toCompute) {
  auto heap = make<Buffer>();
  heap->name = "H";
  heap->dtype = DataType::int64();
  heap->shape = {intImm(slots.size())};
  heap->data = make<PrimVar>("H", DataType::handle());
  std::vector<Stmt> stores;
  for (int i : toCompute)
    stores.push_back(make<BufferStore>(heap, loadVars(slots[i].expr, slots, heap), std::vector<PrimExpr>{intImm(i)}));
  auto func = make<PrimFunc>();
  auto param = make<PrimVar>("heap", DataType::handle());
  func->params = {param};
  func->bufferMap = {{param, heap}};
  func->body = stores.size() == 1 ? stores[0] : Stmt(make<SeqStmt>(std::move(stores)));
  func->attrs = makeDictAttrs({{"tir.is_host_func", AttrValue::boolean(true)}});
  func->sinfo = primFuncSInfo(*func);
  return func;
}

}  // namespace rlx
