// Anchor translation unit of yuzu_pch_server: CMake builds a precompiled
// header only for a target with at least one source, and the Yuzu libraries
// reuse this target's (cmake/YuzuPch.cmake). Nothing links the library.
namespace yuzu::pch_anchor {
int unused = 0;
}  // namespace yuzu::pch_anchor
