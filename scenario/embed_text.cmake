# Turns a text file into a C source defining it as a NUL-terminated byte
# array, so lowersim carries the file and works outside the source tree.
#   cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -DHEADER=dir/header.h [-DCOMPACT=ON] -P embed_text.cmake
# defines `const unsigned char SYMBOL[]` and `const size_t SYMBOL_size`.
# COMPACT=ON embeds an XML file without its comments and without the
# whitespace between tags (text that only a human reader needs; libxml2
# parses and compiles the schema at every start, and that text is a third of
# the cost).
foreach(var INPUT OUTPUT SYMBOL HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: ${var} is not set")
  endif()
endforeach()

set(input "${INPUT}")
if(COMPACT)
  file(READ "${INPUT}" text)
  string(FIND "${text}" "<!--" start)
  while(NOT start EQUAL -1)
    string(SUBSTRING "${text}" 0 ${start} head)
    string(SUBSTRING "${text}" ${start} -1 rest)
    string(FIND "${rest}" "-->" end)
    if(end EQUAL -1)
      message(FATAL_ERROR "embed_text.cmake: ${INPUT} has an unclosed comment")
    endif()
    math(EXPR end "${end} + 3")
    string(SUBSTRING "${rest}" ${end} -1 rest)
    set(text "${head}${rest}")
    string(FIND "${text}" "<!--" start)
  endwhile()
  string(REGEX REPLACE ">[ \t\r\n]+<" "><" text "${text}")
  string(STRIP "${text}" text)
  set(input "${OUTPUT}.compact")
  file(WRITE "${input}" "${text}")
endif()
file(READ "${input}" hex HEX)
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
