// libFuzzer target for Relay text: arbitrary bytes through the reader and, when they read, the
// importer (its struct-info oracle on). Must end in a module or a located error: never a crash, a
// hang, or an exception escaping the API.
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/relay/relay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto module = rlx::relay::readRelayText(std::move(text), "fuzz.relay");
  if (!module) {
    if (!module.error().span.known() && module.error().message.empty()) __builtin_trap();
    return 0;
  }
  std::vector<rlx::Error> mismatches;
  size_t checked = 0;
  rlx::relay::ImportOptions options;
  options.printedTypeMismatches = &mismatches;
  options.printedTypesChecked = &checked;
  auto mod = rlx::relay::importRelay(*module, options);
  (void)mod;
  return 0;
}
