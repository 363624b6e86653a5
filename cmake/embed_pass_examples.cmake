# Writes OUT: a C++ table {pass name, example text} from the files of DIR (passes/examples/NAME.relax),
# so that `:help PASS` and `rlx opt --explain PASS` can show a worked example without the source tree.
file(GLOB examples ${DIR}/*.relax)
list(SORT examples)
set(body "// Generated from passes/examples by cmake/embed_pass_examples.cmake; do not edit.\n")
foreach(path ${examples})
  get_filename_component(name ${path} NAME_WE)
  file(READ ${path} text)
  string(APPEND body "{\"${name}\", R\"rlx_example(${text})rlx_example\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
