// Reading ONNX files: a ModelProto (its initializers' raw_data left in the file for the importer to
// read straight into the arrays) or a tensor / sequence / optional .pb through protobuf, with the
// byte offset where a corrupt or truncated file stops making sense, then the import itself; writing
// a tensor .pb.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/onnx.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

namespace {

using google::protobuf::internal::WireFormatLite;

// Where a message's wire encoding first breaks: the offset of the first top-level field that
// cannot be read (a bad tag, a length past the end, a truncated value); npos when none does.
size_t firstBadOffset(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
  in.SetRecursionLimit(100);
  while (true) {
    size_t at = size_t(in.CurrentPosition());
    uint32_t tag = in.ReadTag();
    if (tag == 0) return in.CurrentPosition() == int(bytes.size()) ? std::string::npos : at;
    if (!WireFormatLite::SkipField(&in, tag)) return at;
  }
}

Status parseMessage(google::protobuf::Message& msg, const std::string& bytes, const std::string& what, const std::string& source) {
  if (msg.ParseFromString(bytes)) return okStatus();
  size_t at = firstBadOffset(bytes);
  std::string where = at == std::string::npos ? "the encoding is well-formed but a field has the wrong type or a required part is missing"
                                              : "the encoding breaks at byte " + std::to_string(at) + " of " + std::to_string(bytes.size());
  return Error(source + ": not a valid ONNX " + what + " (" + where + "; truncated or corrupt file?)");
}

Result<std::string> readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return Error("cannot open '" + path + "': " + std::strerror(errno));
  std::string bytes(size_t(f.tellg()), '\0');
  f.seekg(0);
  if (!f.read(bytes.data(), std::streamsize(bytes.size()))) return Error("reading '" + path + "' failed");
  return bytes;
}

// Walks a model's wire format over the mapped file and has protobuf parse every run of fields from
// the file's own bytes, except the main graph's initializers' raw_data: their place in the file is
// recorded instead, so a weight is copied once (file -> its array) and never into a string of the
// message first. That string was 100 MB of fresh pages for ResNet-50, a quarter of a warm `rlx run`.
class RawDataSkippingParser {
 public:
  RawDataSkippingParser(const uint8_t* bytes, int size, std::string path)
      : bytes_(bytes), size_(size), path_(std::move(path)), in_(bytes, size) {}

  // False when the file does not read as a model (the caller's full parse then says where).
  bool parse(::onnx::ModelProto& model, std::vector<std::optional<BytesInFile>>& rawData) {
    return fields(model, size_, 7, [&](int graphEnd) {  // ModelProto.graph
      auto& graph = *model.mutable_graph();
      return fields(graph, graphEnd, 5, [&](int tensorEnd) {  // GraphProto.initializer
        auto& tensor = *graph.add_initializer();
        size_t index = size_t(graph.initializer_size() - 1);
        return fields(tensor, tensorEnd, 9, [&](int dataEnd) {  // TensorProto.raw_data
          int start = in_.CurrentPosition();
          rawData.resize(index + 1);
          rawData[index] = BytesInFile{path_, start, size_t(dataEnd - start)};
          return in_.Skip(dataEnd - start);
        });
      });
    });
  }

 private:
  // The fields of one message, up to byte `end`: those numbered `claimed` (length-delimited) go to
  // `claim(payloadEnd)`, which must consume the payload; the runs of other fields between them are
  // merged into `msg` by protobuf.
  template <typename Claim>
  bool fields(google::protobuf::Message& msg, int end, int claimed, Claim&& claim) {
    int run = in_.CurrentPosition();
    while (in_.CurrentPosition() < end) {
      int at = in_.CurrentPosition();
      uint32_t tag = in_.ReadTag();
      if (tag == 0) return false;
      if (WireFormatLite::GetTagFieldNumber(tag) != claimed || WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
        if (!WireFormatLite::SkipField(&in_, tag)) return false;
        continue;
      }
      uint32_t length;
      if (!in_.ReadVarint32(&length) || length > uint32_t(end - in_.CurrentPosition())) return false;
      int payloadEnd = in_.CurrentPosition() + int(length);
      if (!merge(msg, run, at) || !claim(payloadEnd) || in_.CurrentPosition() != payloadEnd) return false;
      run = payloadEnd;
    }
    return in_.CurrentPosition() == end && merge(msg, run, end);
  }

  bool merge(google::protobuf::Message& msg, int from, int to) {
    if (from == to) return true;
    google::protobuf::io::CodedInputStream run(bytes_ + from, to - from);
    return msg.MergePartialFromCodedStream(&run) && run.ConsumedEntireMessage();
  }

  const uint8_t* bytes_;
  int size_;
  std::string path_;
  google::protobuf::io::CodedInputStream in_;
};

// Parses the model from the mapped file, its initializers' raw_data left in the file (`rawData`, by
// initializer index). A file that does not map or does not walk is parsed whole from a stream, so
// that its bytes are never held next to the parsed message; only a failed parse reads them, to say
// where.
Status parseModelFile(::onnx::ModelProto& model, const std::string& path, std::vector<std::optional<BytesInFile>>& rawData) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < INT32_MAX) {
    void* mapped = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped != MAP_FAILED) {
      bool walked = RawDataSkippingParser(static_cast<const uint8_t*>(mapped), int(st.st_size), path).parse(model, rawData);
      ::munmap(mapped, size_t(st.st_size));
      if (walked) {
        ::close(fd);
        return okStatus();
      }
      model.Clear();
      rawData.clear();
    }
  }
  bool ok;
  {
    google::protobuf::io::FileInputStream in(fd, 1 << 20);
    ok = model.ParseFromZeroCopyStream(&in) && in.GetErrno() == 0;
  }
  ::close(fd);
  if (ok) return okStatus();
  RLX_TRY(bytes, readAll(path));
  return parseMessage(model, bytes, "model", path);
}

std::string dirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

Result<Value> tensorValue(::onnx::TensorProto& t, const std::string& path) {
  auto a = toNDArray(t, dirOf(path));
  if (!a) return Error(path + ": " + a.error().message);
  return Value::ofTensor(*a);
}

Result<Value> sequenceValue(::onnx::SequenceProto& seq, const std::string& path) {
  std::vector<Value> items;
  if (seq.elem_type() != ::onnx::SequenceProto::TENSOR && seq.tensor_values_size() == 0 && seq.elem_type() != 0 && seq.elem_type() != ::onnx::SequenceProto::UNDEFINED)
    return Error(path + ": only sequences of tensors are supported");
  for (auto& t : *seq.mutable_tensor_values()) {
    RLX_TRY(v, tensorValue(t, path));
    items.push_back(std::move(v));
  }
  return Value::ofTuple(std::move(items));
}

}  // namespace

bool isOnnxPath(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0; }

Result<IRModuleRef> fromOnnxBytes(const std::string& bytes, const std::string& sourceName, const std::string& baseDir, const ImportOptions& options) {
  ::onnx::ModelProto model;
  RLX_TRY_STATUS(parseMessage(model, bytes, "model", sourceName));
  if (!model.has_graph()) return Error(sourceName + ": the model has no graph");
  GraphImporter importer(model, sourceName, baseDir, options);
  return importer.run();
}

Result<IRModuleRef> fromOnnxFile(const std::string& path, const ImportOptions& options) {
  ::onnx::ModelProto model;
  std::vector<std::optional<BytesInFile>> rawData;
  RLX_TRY_STATUS(parseModelFile(model, path, rawData));
  if (!model.has_graph()) return Error(path + ": the model has no graph");
  GraphImporter importer(model, path, dirOf(path), options, std::move(rawData));
  return importer.run();
}

Result<IRModuleRef> fromOnnxFileSpecializing(const std::string& path, ImportOptions options,
                                             const std::map<std::string, NDArrayRef>& available,
                                             std::vector<std::string>* bound) {
  std::vector<std::string> needed;
  options.neededInputs = &needed;
  while (true) {
    auto mod = fromOnnxFile(path, options);
    if (mod) {
      if (bound)
        for (auto& [name, value] : options.inputValues) bound->push_back(name);
      return mod;
    }
    // Bind what the failed import asked for; stop when it asked for nothing new that we have.
    bool more = false;
    for (auto& name : needed)
      if (!options.inputValues.count(name))
        if (auto it = available.find(name); it != available.end()) options.inputValues[name] = it->second, more = true;
    if (!more) return mod;
    needed.clear();
  }
}

Result<Signature> readSignature(const std::string& path) {
  // The model without its weights: parseModelFile leaves their raw_data in the file, unread.
  ::onnx::ModelProto model;
  std::vector<std::optional<BytesInFile>> rawData;
  RLX_TRY_STATUS(parseModelFile(model, path, rawData));
  auto kind = [](const ::onnx::ValueInfoProto& vi) -> std::string {
    if (vi.type().has_sequence_type()) return "sequence";
    if (vi.type().has_optional_type()) return "optional";
    return "tensor";
  };
  std::set<std::string> inits;
  for (auto& t : model.graph().initializer()) inits.insert(t.name());
  Signature sig;
  for (auto& vi : model.graph().input()) {
    if (inits.count(vi.name())) continue;
    sig.inputs.push_back({vi.name(), kind(vi)});
    auto dt = vi.type().has_tensor_type() ? dtypeOf(vi.type().tensor_type().elem_type()) : Result<DataType>(DataType::void_());
    sig.inputDtypes.push_back(dt ? *dt : DataType::void_());
  }
  for (auto& vi : model.graph().output()) sig.outputs.push_back({vi.name(), kind(vi)});
  return sig;
}

Result<Value> readValueFile(const std::string& path, const std::string& hint) {
  RLX_TRY(bytes, readAll(path));
  return readValue(bytes, path, hint);  // external data resolves next to `path`
}

Result<Value> readValue(const std::string& bytes, const std::string& path, const std::string& hint) {
  if (hint == "sequence") {
    ::onnx::SequenceProto seq;
    RLX_TRY_STATUS(parseMessage(seq, bytes, "sequence", path));
    return sequenceValue(seq, path);
  }
  if (hint == "optional") {
    ::onnx::OptionalProto opt;
    RLX_TRY_STATUS(parseMessage(opt, bytes, "optional", path));
    if (opt.has_tensor_value()) return tensorValue(*opt.mutable_tensor_value(), path);
    if (opt.has_sequence_value()) return sequenceValue(*opt.mutable_sequence_value(), path);
    return Value::ofTuple({});
  }
  ::onnx::TensorProto t;
  RLX_TRY_STATUS(parseMessage(t, bytes, "tensor", path));
  return tensorValue(t, path);
}

Result<std::string> serializeTensor(const NDArray& a, const std::string& name, bool rawData) {
  ::onnx::TensorProto t;
  RLX_TRY_STATUS(fromNDArray(a, t, rawData));
  t.set_name(name);
  std::string bytes;
  if (!t.SerializeToString(&bytes)) return Error("tensor '" + name + "' cannot be serialized (over 2 GB?)");
  return bytes;
}

}  // namespace rlx::onnx
