// SIMD16, one thread: lane i sums i, i-3, i-6, ... while positive; odd partial sums take the else
// path; a lane breaks out early once its sum passes 20. Stores one dword per lane to surface 0
// (untyped surface write) and ends the thread. Break's JIP and UIP both name the while, as Mesa emits them.
// Run: reconverge trace examples/divergent_loop.asm --simd 16 --surface 0=zeros.npy -o loop.png
        mov (16|M0)              r10.0<1>:d    0:d
        mov (16|M0)              r12.0<1>:d    r1.0<8;8,1>:d
L_loop:
        add (16|M0)              r10.0<1>:d    r10.0<8;8,1>:d   r12.0<8;8,1>:d
        and (16|M0)   (nz)f0.1   null<1>:d     r10.0<8;8,1>:d   1:d
(f0.1)  if (16|M0)                             L_else           L_endif
        add (16|M0)              r10.0<1>:d    r10.0<8;8,1>:d   100:d
        else (16|M0)                           L_endif          L_endif
L_else:
        add (16|M0)              r10.0<1>:d    r10.0<8;8,1>:d   -1:d
L_endif:
        endif (16|M0)                          L_test
L_test:
        cmp (16|M0)   (gt)f0.1   null<1>:d     r10.0<8;8,1>:d   300:d
(f0.1)  break (16|M0)                          L_while          L_while
        add (16|M0)              r12.0<1>:d    r12.0<8;8,1>:d   -3:d
        cmp (16|M0)   (gt)f0.0   null<1>:d     r12.0<8;8,1>:d   0:d
L_while:
(f0.0)  while (16|M0)                          L_loop
        shl (16|M0)              r50.0<1>:ud   r1.0<8;8,1>:ud   0x2:ud
        mov (16|M0)              r52.0<1>:ud   r10.0<8;8,1>:ud
        send (16|M0)             null:ud       r50              0xC         0x08025E00
(W)     mov (8|M0)               r112.0<1>:ud  r0.0<8;8,1>:ud
(W)     send (8|M0)              null:ud       r112             0x27        0x02000010 {EOT}
