// Source spans of the nodes of one logical line, shared by both line parsers (PEGTL and the
// common-line fast path) so they give every node exactly the same position.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "ir/span.h"

namespace rlx::syntax {

struct LineSpans {
  uint32_t file;
  uint32_t baseOffset;    // byte offset of the line in its source
  const char* lineBegin;
  Span first;                // span of the line's first byte
  const char* firstNewline;  // end of the first physical line

  LineSpans(std::string_view text, uint32_t file, uint32_t offset)
      : file(file), baseOffset(offset), lineBegin(text.data()), first(sources::spanAt(file, offset, 1)) {
    size_t nl = text.find('\n');
    firstNewline = text.data() + (nl == std::string_view::npos ? text.size() : nl);
  }

  // Most nodes sit on the logical line's first physical line: their position is a subtraction.
  Span at(const char* b, size_t n) const {
    if (b < firstNewline && first.line) {
      uint32_t col = first.col + uint32_t(b - lineBegin);
      uint32_t room = uint32_t(firstNewline - b);
      return Span{file, first.line, col, std::max<uint32_t>(1, std::min<uint32_t>(uint32_t(n), room))};
    }
    return sources::spanAt(file, baseOffset + uint32_t(b - lineBegin), uint32_t(n));
  }
};

}  // namespace rlx::syntax
