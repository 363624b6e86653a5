// The ONNX protobuf messages (Debian's libonnx-dev generated headers), for this folder only:
// heavy protobuf headers stay out of every other library. onnx_pb.h defines ONNX_API first.
#pragma once
#include <onnx/onnx_pb.h>
#include <onnx/onnx-data.pb.h>
