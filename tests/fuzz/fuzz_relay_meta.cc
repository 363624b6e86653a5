// libFuzzer target for the Relay `#[metadata]` reader: arbitrary bytes as the section's JSON (first
// byte even), placed after a `#[metadata]` line of a registered file so error spans are computed and
// rendered, or as a saved TVM NDArray without its base64 (odd). Must never crash or read out of
// bounds; every NDArray it returns must hold exactly the bytes its shape and dtype say.
#include <cstdint>
#include <string>

#include "frontend/relay/base64_ndarray.h"
#include "frontend/relay/relay.h"

namespace {

// Reads every byte of each array so ASan sees any allocation shorter than the shape claims.
void touch(const rlx::NDArrayRef& a) {
  if (!a) __builtin_trap();
  size_t n = a->nbytes();
  auto* p = static_cast<const volatile uint8_t*>(a->data());
  uint8_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum ^= p[i];
  (void)sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    auto a = rlx::relay::decodeTvmNDArray(bytes);
    if (a) touch(*a);
    return 0;
  }
  static const std::string header = "#[metadata]\n";
  uint32_t file = rlx::sources::add("fuzz.relay", header + bytes);
  auto t = rlx::relay::readMetaJson(std::string_view(rlx::sources::text(file)).substr(header.size()), file, uint32_t(header.size()));
  if (!t) {
    (void)rlx::renderError(t.error(), false);
    return 0;
  }
  for (auto& [key, values] : *t)
    for (auto& v : values)
      if (v.kind == rlx::relay::MetaValue::Constant) touch(v.array);
  return 0;
}
