// Each work-item stores global_id(0) * 1000 + global_id(1) at its linear index (offset removed):
// the thread payload of isa/gen9/dispatch.py read by hand (group ids in r0, local ids in r1/r2 as
// uint16, the cross-thread header from r4: r4.0/r4.1 global offset, r4.3/r4.4 local size, r4.6 groups).
mov (16|M0)  r10.0<1>:ud  r1.0<16;16,1>:uw
mul (1|M0)   r20.0<1>:ud  r0.1<0;1,0>:ud  r4.3<0;1,0>:ud
add (16|M0)  r10.0<1>:ud  r10.0<8;8,1>:ud  r20.0<0;1,0>:ud
add (16|M0)  r10.0<1>:ud  r10.0<8;8,1>:ud  r4.0<0;1,0>:ud
mov (16|M0)  r12.0<1>:ud  r2.0<16;16,1>:uw
mul (1|M0)   r20.1<1>:ud  r0.6<0;1,0>:ud  r4.4<0;1,0>:ud
add (16|M0)  r12.0<1>:ud  r12.0<8;8,1>:ud  r20.1<0;1,0>:ud
add (16|M0)  r12.0<1>:ud  r12.0<8;8,1>:ud  r4.1<0;1,0>:ud
mul (16|M0)  r14.0<1>:ud  r10.0<8;8,1>:ud  0x3E8:ud
add (16|M0)  r14.0<1>:ud  r14.0<8;8,1>:ud  r12.0<8;8,1>:ud
mul (1|M0)   r20.2<1>:ud  r4.6<0;1,0>:ud  r4.3<0;1,0>:ud
add (16|M0)  r16.0<1>:d   r12.0<8;8,1>:d  -r4.1<0;1,0>:d
mul (16|M0)  r16.0<1>:d   r16.0<8;8,1>:d  r20.2<0;1,0>:d
add (16|M0)  r16.0<1>:d   r16.0<8;8,1>:d  r10.0<8;8,1>:d
add (16|M0)  r16.0<1>:d   r16.0<8;8,1>:d  -r4.0<0;1,0>:d
shl (16|M0)  r30.0<1>:ud  r16.0<8;8,1>:ud  0x2:ud
mov (16|M0)  r32.0<1>:ud  r14.0<8;8,1>:ud
send (16|M0) null:ud r30 0xC 0x08025E00
(W) mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud
(W) send (8|M0) null:ud r127 0x27 0x02000010 {EOT}
