# cmake -DIN=file -DOUT=file.cpp -DID=symbol -P EmbedFile.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "// Generated from ${IN}. Do not edit.\nextern const unsigned char ${ID}[] = {\n${bytes}0x00};\nextern const unsigned long ${ID}_size = ${size};\n")
