/* starter.c (Debian's pvm-examples) calls exit() without a status. Force-included when it is
 * compiled: exit is declared without a prototype, so that call compiles as the 1990s code
 * expects (status undefined, as on the systems it was written for). */
void exit();
