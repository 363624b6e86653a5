// Span: where a node came from in its source text, and the registry of source texts spans point into.
// Spans are 16 bytes (file id + line/col/length) so every node can afford one.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace rlx {

struct Span {
  uint32_t file = 0;  // 0 = no source
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based, in bytes
  uint32_t len = 0;   // underline length on the first line
  bool known() const { return file != 0 && line != 0; }
};

// Append-only registry of source texts (file name + contents) so diagnostics can show the line.
namespace sources {
uint32_t add(std::string name, std::string text);
const std::string& name(uint32_t file);
const std::string& text(uint32_t file);
// The text of 1-based line `line` of `file`, without its newline.
std::string_view line(uint32_t file, uint32_t line);
// The span of bytes [offset, offset+len) of `file` (len clipped to the first line).
Span spanAt(uint32_t file, uint32_t offset, uint32_t len);
}  // namespace sources

}  // namespace rlx
