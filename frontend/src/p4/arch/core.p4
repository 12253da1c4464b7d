/* scenicc's declaration of the P4_16 core library, written for scenicc from the declarations
 * the P4_16 language specification gives in its "core library" section. The reader gives these
 * declarations their meaning itself (docs/p4.md); this file states their names and types. */

#ifndef _CORE_P4_
#define _CORE_P4_

/* Errors the parser itself signals. */
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
    /* Reads a header from the packet and makes it valid. */
    void extract<T>(out T hdr);
    /* Reads a header with a varbit field of the given size. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* The next bits of the packet, without consuming them. */
    T lookahead<T>();
    /* Skips bits. */
    void advance(in bit<32> sizeInBits);
    /* The packet's length in bytes. */
    bit<32> length();
}

extern packet_out {
    /* Appends a header to the packet if it is valid. */
    void emit<T>(in T hdr);
}

/* In a parser: rejects with `toSignal` unless `check` holds. */
extern void verify(in bool check, in error toSignal);

/* The action that does nothing. */
@noWarn("unused")
action NoAction() {}

match_kind {
    exact,
    ternary,
    lpm
}

#endif
