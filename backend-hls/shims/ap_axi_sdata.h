// ap_axi_sdata.h: scenicc's own definition of the AXI4-Stream side-channel structs ap_axiu/ap_axis.
//
// Written from scratch for scenicc (Apache-2.0). Generated kernels use only .data, .keep, .strb
// and .last of ap_axiu<512,0,0,0>, so this file also compiles against the real Vitis header. The
// side channels user/id/dest exist only when their width is nonzero, as in Vitis (a zero-width
// ap_uint is not a type).
#ifndef SCENIC_AP_AXI_SDATA_SHIM_H
#define SCENIC_AP_AXI_SDATA_SHIM_H

#include <ap_int.h>

namespace scenic_axi_detail {

// A side-channel field of W bits; nothing at all when W is 0.
template <int W>
struct side_user {
    ap_uint<W> user;
    side_user() : user(0) {}
};
template <>
struct side_user<0> {};

template <int W>
struct side_id {
    ap_uint<W> id;
    side_id() : id(0) {}
};
template <>
struct side_id<0> {};

template <int W>
struct side_dest {
    ap_uint<W> dest;
    side_dest() : dest(0) {}
};
template <>
struct side_dest<0> {};

}  // namespace scenic_axi_detail

// One AXI4-Stream transfer with unsigned data: D data bits, U user bits, TI id bits, TD dest bits.
template <int D, int U, int TI, int TD>
struct ap_axiu : scenic_axi_detail::side_user<U>,
                 scenic_axi_detail::side_id<TI>,
                 scenic_axi_detail::side_dest<TD> {
    ap_uint<D> data;
    ap_uint<(D + 7) / 8> keep;
    ap_uint<(D + 7) / 8> strb;
    ap_uint<1> last;
    ap_axiu() : data(0), keep(0), strb(0), last(0) {}
};

// The same with signed data.
template <int D, int U, int TI, int TD>
struct ap_axis : scenic_axi_detail::side_user<U>,
                 scenic_axi_detail::side_id<TI>,
                 scenic_axi_detail::side_dest<TD> {
    ap_int<D> data;
    ap_uint<(D + 7) / 8> keep;
    ap_uint<(D + 7) / 8> strb;
    ap_uint<1> last;
    ap_axis() : data(0), keep(0), strb(0), last(0) {}
};

#endif  // SCENIC_AP_AXI_SDATA_SHIM_H
