// Instruction encoding/decoding, the text dump, and the ExecBuilder that lays out functions,
// constants and instructions while the compiler walks a lowered module.
#include "runtime/executable.h"

#include <fmt/format.h>

#include "ir/diagnostic.h"

namespace rlx::vm {

Instruction Executable::instruction(int64_t index) const {
  const int64_t* w = &instrData[size_t(instrOffset[size_t(index)])];
  Instruction in;
  in.op = Opcode(w[0]);
  switch (in.op) {
    case Opcode::Call:
      in.dst = w[1];
      in.funcIdx = w[2];
      in.numArgs = w[3];
      in.args = reinterpret_cast<const Arg*>(w + 4);
      break;
    case Opcode::Ret: in.result = w[1]; break;
    case Opcode::Goto: in.pcOffset = w[1]; break;
    case Opcode::If:
      in.cond = w[1];
      in.falseOffset = w[2];
      break;
  }
  return in;
}

namespace {

std::string regText(int64_t r) {
  if (r == kVoidRegister) return "%void";
  if (r == kVMRegister) return "%vm";
  return fmt::format("%{}", r);
}

std::string padRight(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string Executable::asText() const {
  std::string out;
  for (auto& f : funcTable) {
    if (f.kind == FuncInfo::Packed) {
      out += fmt::format("@{} packed_func;\n\n", f.name);
      continue;
    }
    out += fmt::format("@{}:\n", f.name);
    for (int64_t i = f.startInstr; i < f.endInstr; ++i) {
      Instruction in = instruction(i);
      out += "  ";
      switch (in.op) {
        case Opcode::Call: {
          std::string args;
          for (int64_t k = 0; k < in.numArgs; ++k) {
            Arg a = in.args[k];
            if (k) args += ", ";
            switch (a.kind()) {
              case Arg::Register: args += regText(a.value()); break;
              case Arg::Immediate: args += fmt::format("i{}", a.value()); break;
              case Arg::ConstIdx: args += fmt::format("c[{}]", a.value()); break;
              case Arg::FuncIdx: args += fmt::format("f[{}]", funcTable[size_t(a.value())].name); break;
            }
          }
          out += padRight("call", 6) + padRight(funcTable[size_t(in.funcIdx)].name, 16) + " in: " + padRight(args, 12) +
                 " dst: " + regText(in.dst) + "\n";
          break;
        }
        case Opcode::Ret: out += padRight("ret", 6) + regText(in.result) + "\n"; break;
        case Opcode::Goto: out += padRight("goto", 6) + std::to_string(in.pcOffset) + "\n"; break;
        case Opcode::If: out += padRight("If", 6) + regText(in.cond) + ", " + std::to_string(in.falseOffset) + "\n"; break;
      }
    }
    out += "\n";
  }
  return out;
}

// ---------------------------------------------------------------- ExecBuilder

int64_t ExecBuilder::declareFunction(const std::string& name, FuncInfo::Kind kind) {
  auto it = exec_.funcMap.find(name);
  if (it != exec_.funcMap.end()) return it->second;
  FuncInfo info;
  info.kind = kind;
  info.name = name;
  exec_.funcTable.push_back(std::move(info));
  return exec_.funcMap[name] = int64_t(exec_.funcTable.size()) - 1;
}

void ExecBuilder::beginFunction(const std::string& name, const std::vector<std::string>& params) {
  int64_t idx = declareFunction(name, FuncInfo::VMFunc);
  auto& info = exec_.funcTable[size_t(idx)];
  info.kind = FuncInfo::VMFunc;
  info.startInstr = nextInstr();
  info.numArgs = int64_t(params.size());
  info.paramNames = params;
  current_ = name;
}

void ExecBuilder::endFunction(int64_t registerFileSize) {
  auto& info = exec_.funcTable[size_t(exec_.funcMap.at(current_))];
  info.endInstr = nextInstr();
  info.registerFileSize = registerFileSize;
}

int64_t ExecBuilder::constant(const Value& v) {
  for (size_t k = 0; k < exec_.constants.size(); ++k) {
    const Value& c = exec_.constants[k];
    if (c.kind != v.kind) continue;
    bool same = false;
    switch (v.kind) {
      case Value::Int: same = c.i == v.i; break;
      case Value::Float: same = std::memcmp(&c.f, &v.f, sizeof(double)) == 0; break;
      case Value::DType: same = c.dt == v.dt; break;
      case Value::Str: same = c.str() == v.str(); break;
      case Value::Shape: same = c.shapeDims() == v.shapeDims(); break;
      case Value::Tensor: same = c.array.same(v.array); break;
      default: break;
    }
    if (same) return int64_t(k);
  }
  exec_.constants.push_back(v);
  return int64_t(exec_.constants.size()) - 1;
}

int64_t ExecBuilder::emitCall(int64_t funcIdx, const std::vector<Arg>& args, int64_t dst) {
  exec_.instrOffset.push_back(int64_t(exec_.instrData.size()));
  exec_.instrData.insert(exec_.instrData.end(), {int64_t(Opcode::Call), dst, funcIdx, int64_t(args.size())});
  for (auto& a : args) exec_.instrData.push_back(a.word);
  return nextInstr() - 1;
}

int64_t ExecBuilder::emitRet(int64_t reg) {
  exec_.instrOffset.push_back(int64_t(exec_.instrData.size()));
  exec_.instrData.insert(exec_.instrData.end(), {int64_t(Opcode::Ret), reg});
  return nextInstr() - 1;
}

int64_t ExecBuilder::emitGoto(int64_t offset) {
  exec_.instrOffset.push_back(int64_t(exec_.instrData.size()));
  exec_.instrData.insert(exec_.instrData.end(), {int64_t(Opcode::Goto), offset});
  return nextInstr() - 1;
}

int64_t ExecBuilder::emitIf(int64_t condReg, int64_t falseOffset) {
  exec_.instrOffset.push_back(int64_t(exec_.instrData.size()));
  exec_.instrData.insert(exec_.instrData.end(), {int64_t(Opcode::If), condReg, falseOffset});
  return nextInstr() - 1;
}

void ExecBuilder::patchOffset(int64_t instr, int64_t offset) {
  int64_t* w = &exec_.instrData[size_t(exec_.instrOffset[size_t(instr)])];
  RLX_CHECK(Opcode(w[0]) == Opcode::Goto || Opcode(w[0]) == Opcode::If);
  w[Opcode(w[0]) == Opcode::Goto ? 1 : 2] = offset;
}

}  // namespace rlx::vm
