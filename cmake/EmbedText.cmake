# cmake -DINPUT=file -DOUTPUT=header -DNAME=identifier -P EmbedText.cmake
# Writes `header` declaring `inline constexpr char NAME[]` holding the bytes of `file`, so a
# generated text (the digest kernel's PTX) is compiled into the binary.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\n#pragma once\ninline constexpr char ${NAME}[] = R\"d2k_embed(${text})d2k_embed\";\n")
