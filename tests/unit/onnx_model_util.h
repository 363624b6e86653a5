// Single-node ONNX models written on the wire by hand (no protobuf headers in the tests), and
// their outputs from the reference evaluator, the TIR interpreter and the VM's compiled kernels.
#pragma once
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "ir/eval_function.h"
#include "passes/registry.h"
#include "runtime/runner.h"
#include "runtime/value.h"

namespace rlx::test {

// Protocol buffer fields: varints and length-delimited bytes, enough for ModelProto.
inline std::string varint(uint64_t v) {
  std::string s;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    s += char(byte | (v ? 0x80 : 0));
  } while (v);
  return s;
}
inline std::string intField(int field, int64_t v) { return varint(uint64_t(field) << 3) + varint(uint64_t(v)); }
inline std::string bytesField(int field, const std::string& bytes) { return varint(uint64_t(field) << 3 | 2) + varint(bytes.size()) + bytes; }

// AttributeProto: INT (type 2) or STRING (type 3).
inline std::string intAttr(const std::string& name, int64_t v) { return bytesField(1, name) + intField(3, v) + intField(20, 2); }
inline std::string stringAttr(const std::string& name, const std::string& v) { return bytesField(1, name) + bytesField(4, v) + intField(20, 3); }

struct TensorType {
  std::string name;
  int elemType;  // TensorProto.DataType
  std::vector<int64_t> dims;
};

// ValueInfoProto { name, type { tensor_type { elem_type, shape { dim { dim_value } } } } }.
inline std::string valueInfo(const TensorType& t) {
  std::string shape;
  for (int64_t d : t.dims) shape += bytesField(1, intField(1, d));
  return bytesField(1, t.name) + bytesField(2, bytesField(1, intField(1, t.elemType) + bytesField(2, shape)));
}

// A ModelProto (opset `opset` of ai.onnx) of one node `op` over graph inputs `inputs` (empty
// names are absent optional inputs) and constant `initializers`, with outputs `outputs`.
inline std::string singleNodeModel(const std::string& op, const std::vector<std::string>& attrs, const std::vector<TensorType>& inputs,
                                   const std::vector<std::pair<std::string, NDArrayRef>>& initializers, const std::vector<std::string>& nodeInputs,
                                   const std::vector<TensorType>& outputs, int opset = 25) {
  std::string node;
  for (auto& in : nodeInputs) node += bytesField(1, in);
  for (auto& out : outputs) node += bytesField(2, out.name);
  node += bytesField(4, op);
  for (auto& a : attrs) node += bytesField(5, a);
  std::string graph = bytesField(1, node) + bytesField(2, "g");
  for (auto& [name, array] : initializers) {
    auto t = onnx::serializeTensor(*array, name);
    REQUIRE(t);
    graph += bytesField(5, *t);
  }
  for (auto& in : inputs) graph += bytesField(11, valueInfo(in));
  for (auto& out : outputs) graph += bytesField(12, valueInfo(out));
  return intField(1, 10) + bytesField(8, intField(2, opset)) + bytesField(7, graph);
}

// The model's single output from `args`: by the reference evaluator on the imported module, the
// TIR interpreter on the legalized one, and the VM's compiled kernels; each must agree byte for
// byte with the first, which is returned.
inline NDArrayRef runAllWays(const std::string& model, const std::vector<NDArrayRef>& args) {
  auto mod = onnx::fromOnnxBytes(model, "test.onnx", ".");
  INFO((mod ? "" : mod.error().message));
  REQUIRE(mod);
  std::vector<Value> evalArgs;
  std::vector<vm::Value> vmArgs;
  for (auto& a : args) {
    evalArgs.push_back(Value::ofTensor(a));
    vmArgs.push_back(vm::fromEvalValue(Value::ofTensor(a)));
  }
  auto ref = evaluateFunction(**mod, "main", evalArgs);
  INFO((ref ? "" : ref.error().message));
  REQUIRE(ref);
  REQUIRE(ref->kind == Value::Tensor);
  NDArrayRef want = ref->tensor;

  auto passes = parsePipeline("LegalizeOps");
  REQUIRE(passes.ok());
  auto legal = runSequential(passes.value(), *mod, PassContext());
  REQUIRE(legal.ok());
  auto interp = evaluateFunction(*legal.value(), "main", evalArgs);
  INFO((interp ? "" : interp.error().message));
  REQUIRE(interp);
  CHECK(interp->tensor->sameData(*want));

  auto prepared = prepareModule(*mod, "build");
  INFO((prepared ? "" : prepared.error().message));
  REQUIRE(prepared);
  auto result = prepared->machine->invoke("main", vmArgs);
  INFO((result ? "" : result.error().message));
  REQUIRE(result);
  Value got;
  std::string err;
  REQUIRE(vm::toEvalValue(*result, got, err));
  CHECK(got.tensor->sameData(*want));
  return want;
}

inline NDArrayRef floats(const std::vector<float>& v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {int64_t(v.size())};
  auto a = make<NDArray>(DataType::float32(), shape);
  std::memcpy(a->data(), v.data(), v.size() * 4);
  return a;
}

inline std::vector<int> codes(const NDArray& a) {
  std::vector<int> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(static_cast<const uint8_t*>(a.data())[i]);
  return out;
}

}  // namespace rlx::test
