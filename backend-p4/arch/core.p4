/* core.p4: scenicc's own minimal declaration of the P4_16 core library, written from the
 * declarations published in the P4_16 language specification (v1.2.4, "P4 core library"). It is
 * not p4c's file. scenicc's P4 reader uses it to read back the programs scenicc writes; p4c and
 * Vitis Networking P4 users compile against their own tools' core.p4, which these declarations
 * are meant to match. */
#ifndef SCENIC_CORE_P4
#define SCENIC_CORE_P4

error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

extern packet_in {
    void extract<T>(out T hdr);
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    T lookahead<T>();
    void advance(in bit<32> sizeInBits);
    bit<32> length();
}

extern packet_out {
    void emit<T>(in T hdr);
}

extern void verify(in bool check, in error toSignal);

action NoAction() {}

match_kind {
    exact,
    ternary,
    lpm
}

#endif
