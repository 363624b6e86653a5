// ONNX element types and TensorProto contents as rlx dtypes and NDArrays: raw little-endian bytes,
// the typed repeated fields, and external data read from the side file next to the model.
#pragma once
#include <string>

#include "frontend/onnx/proto.h"
#include "ir/diagnostic.h"
#include "ir/ndarray.h"

namespace rlx::onnx {

// The rlx dtype of an ONNX TensorProto.DataType code; an Error names unsupported ones (string,
// complex).
Result<DataType> dtypeOf(int32_t onnxType);
// The ONNX name of a type code ("FLOAT16"), for messages.
std::string onnxTypeName(int32_t onnxType);
// The ONNX type code of an rlx dtype (0 when ONNX has none).
int32_t onnxTypeOf(DataType t);

// Where a tensor's bytes lie in a file: external data, or an initializer's raw_data that the model
// parser left in the model file instead of copying it into the message (model_file.cc).
struct BytesInFile {
  std::string path;
  int64_t offset = 0;
  size_t length = 0;
};

// The array a TensorProto holds. `baseDir` resolves external data (its `location` must stay inside
// that folder). `release` frees the proto's own copy of the bytes once they are converted, so a
// model's weights are never held twice. `inFile`, when given, is the tensor's raw_data.
Result<NDArrayRef> toNDArray(::onnx::TensorProto& t, const std::string& baseDir, bool release = false,
                             const BytesInFile* inFile = nullptr);

// The TensorProto holding `a` (replacing t's contents): its bytes in raw_data (the 4-bit and 2-bit
// types packed), or with rawData false the typed field ONNX reads for its type (int32_data for
// 16-bit and narrower types: float bits as integers, packed bytes for the 4-/2-bit types).
Status fromNDArray(const NDArray& a, ::onnx::TensorProto& t, bool rawData = true);

}  // namespace rlx::onnx
