# Turns a text file into a C source defining it as a NUL-terminated byte
# array, so lowersim carries the file and works outside the source tree.
#   cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -DHEADER=dir/header.h -P embed_text.cmake
# defines `const unsigned char SYMBOL[]` and `const size_t SYMBOL_size`.
foreach(var INPUT OUTPUT SYMBOL HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: ${var} is not set")
  endif()
endforeach()

file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n  " bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)

file(WRITE "${OUTPUT}"
"/* Generated from ${input_name} by scenario/embed_text.cmake: do not edit. */
#include \"${HEADER}\"

const unsigned char ${SYMBOL}[] = {
  ${bytes}0x00};
const size_t ${SYMBOL}_size = ${size};
")
