c     Fortran binding check: calls every pvmf routine and prints what it returned, in a form
c     that does not depend on task ids. Built against Debian's libfpvm3 and against ours, the
c     two must print the same. Run as master; it spawns a copy of itself named 'fcheck'.
      program fcheck
      include 'fpvm3.h'
      integer mytid, ptid
      call pvmfmytid(mytid)
      call pvmfparent(ptid)
      if (ptid .eq. PvmNoParent) then
         call master(mytid)
      else
         call child(mytid, ptid)
      endif
      end

      subroutine master(mytid)
      include 'fpvm3.h'
      external PvmSum, PvmMax, PvmMin, PvmProduct, xsum
      integer mytid, info, old, val, nhost, narch, dtid, speed, i, k
      integer ntask, tid, ptid, ttid, flag, child, tids(4), numt, bufid
      integer b2, b3, bytes, tag, src, ctx, ctx2, index, ncls, nent
      integer idx(8), own(8), flg(8), inum, sz, idata(3), jdata(6)
      integer i4(3), i8(2), atid, atag, alen, sec, usec, dsec, dusec
      integer*2 i2(2)
      integer*8 l8(2)
      real r4(2)
      double precision r8(4), p8(4)
      complex c8(2)
      double complex c16
      character*64 host, arch, aout, name
      character*16 str
      character*1 b1(3)

      call pvmfsetopt(PVMAUTOERR, 0, old)
      print *, 'setopt autoerr old', old
      call pvmfgetopt(PVMAUTOERR, val)
      print *, 'getopt autoerr', val
      call pvmfgetopt(PVMROUTE, val)
      print *, 'getopt route', val
      call pvmfconfig(nhost, narch, dtid, host, arch, speed, info)
      print *, 'config', nhost, narch, (dtid .gt. 0), trim(arch), speed, info
      call pvmfconfig(nhost, narch, dtid, host, arch, speed, info)
      print *, 'config again', nhost, narch, trim(arch), speed, info
      ntask = -1
      call pvmftasks(0, ntask, tid, ptid, ttid, flag, aout, info)
      print *, 'tasks', (ntask .ge. 1), info
      call pvmfarchcode('LINUX64', k)
      print *, 'archcode', k
      call pvmftidtohost(mytid, dtid)
      print *, 'tidtohost', (dtid .gt. 0)
      call pvmfpstat(mytid, val)
      print *, 'pstat self', val
      call pvmfmstat(host, val)
      print *, 'mstat', val
      call pvmfmstat('no.such.host', val)
      print *, 'mstat missing', val
      call pvmfsiblings(ntask, 0, tid)
      print *, 'siblings', ntask, (tid .eq. mytid)
      call pvmfsiblings(ntask, -1, tid)
      print *, 'siblings -1', ntask, tid
      call pvmfcatchout(0, info)
      print *, 'catchout off', info

      call pvmfspawn('no-such-program', PVMDEFAULT, '*', 1, tids, numt)
      print *, 'spawn missing', numt, tids(1)
      call pvmfspawn('fcheck', PVMDEFAULT, '*', 1, tids, numt)
      child = tids(1)
      print *, 'spawn', numt
      call pvmfnotify(PVMTASKEXIT, 99, 1, child, info)
      print *, 'notify', info

c     every pack type, echoed back by the child with integers + 1
      call pvmfinitsend(PVMDEFAULT, bufid)
      print *, 'initsend', (bufid .gt. 0)
      i4(1) = 1
      i4(2) = -2
      i4(3) = 2147483647
      i2(1) = -7
      i2(2) = 300
      l8(1) = 5
      l8(2) = 123456
      r4(1) = 1.5
      r4(2) = -0.25
      r8(1) = 3.25d0
      r8(2) = -1.0d100
      c8(1) = (1.0, -2.0)
      c8(2) = (0.5, 4.0)
      c16 = (1.0d0, 2.0d0)
      b1(1) = 'x'
      b1(2) = 'y'
      b1(3) = 'z'
      call pvmfpack(INTEGER4, i4, 3, 1, info)
      call pvmfpack(INTEGER2, i2, 2, 1, info)
      call pvmfpack(INTEGER8, l8, 2, 1, info)
      call pvmfpack(REAL4, r4, 2, 1, info)
      call pvmfpack(REAL8, r8, 2, 1, info)
      call pvmfpack(COMPLEX8, c8, 2, 1, info)
      call pvmfpack(COMPLEX16, c16, 1, 1, info)
      call pvmfpack(BYTE1, b1, 3, 1, info)
      call pvmfpack(STRING, 'hello world', 11, 1, info)
      print *, 'pack', info
      call pvmfpack(99, i4, 1, 1, info)
      print *, 'pack bad type', info
      call pvmfsend(child, 5, info)
      print *, 'send', info
      call pvmfrecv(child, 5, bufid)
      call pvmfbufinfo(bufid, bytes, tag, src, info)
      print *, 'bufinfo', bytes, tag, (src .eq. child), info
      call pvmfunpack(INTEGER4, i4, 3, 1, info)
      call pvmfunpack(INTEGER2, i2, 2, 1, info)
      call pvmfunpack(INTEGER8, l8, 2, 1, info)
      call pvmfunpack(REAL4, r4, 2, 1, info)
      call pvmfunpack(REAL8, r8, 2, 1, info)
      call pvmfunpack(COMPLEX8, c8, 2, 1, info)
      call pvmfunpack(COMPLEX16, c16, 1, 1, info)
      call pvmfunpack(BYTE1, b1, 3, 1, info)
      str = ' '
      call pvmfunpack(STRING, str, 11, 1, info)
      print *, 'echo', i4, i2, l8
      print *, 'echo', r4, r8(1), r8(2)
      print *, 'echo', c8, c16
      print *, 'echo ', b1, ' ', str, info
      call pvmfunpack(INTEGER4, i4, 1, 1, info)
      print *, 'unpack past end', info
c     strides
      call pvmfinitsend(PVMRAW, bufid)
      i4(1) = 10
      i4(2) = 20
      i4(3) = 30
      call pvmfpack(INTEGER4, i4, 2, 2, info)
      call pvmfmcast(1, child, 7, info)
      print *, 'mcast', info
      call pvmfrecv(-1, 7, bufid)
      call pvmfunpack(INTEGER4, i4, 2, 1, info)
      print *, 'stride echo', i4(1), i4(2), info
c     psend / precv
      r8(1) = 1.0d0
      r8(2) = 2.5d0
      r8(3) = -3.0d0
      r8(4) = 4.0d0
      call pvmfpsend(child, 6, r8, 4, REAL8, info)
      print *, 'psend', info
      call pvmfprecv(child, 6, p8, 4, REAL8, atid, atag, alen, info)
      print *, 'precv', p8, (atid .eq. child), atag, alen, info
c     receives that find nothing
      call pvmfnrecv(-1, 77, bufid)
      print *, 'nrecv', bufid
      call pvmfprobe(-1, 77, bufid)
      print *, 'probe', bufid
      sec = 0
      usec = 20000
      call pvmftrecv(-1, 77, sec, usec, bufid)
      print *, 'trecv', bufid
c     buffers
      call pvmfmkbuf(PVMDEFAULT, b2)
      call pvmfsetsbuf(b2, b3)
      call pvmfgetsbuf(bufid)
      print *, 'setsbuf', (bufid .eq. b2)
      call pvmfsetsbuf(b3, bufid)
      call pvmffreebuf(b2, info)
      print *, 'freebuf', info
      call pvmffreebuf(b2, info)
      print *, 'freebuf again', info
      call pvmfgetrbuf(bufid)
      call pvmfsetrbuf(0, b3)
      call pvmfgetrbuf(b2)
      print *, 'setrbuf', (b3 .eq. bufid), b2
      call pvmfsetrbuf(b3, b2)
c     contexts
      call pvmfgetcontext(ctx)
      print *, 'getcontext', ctx
      call pvmfnewcontext(ctx2)
      call pvmfsetcontext(ctx2, old)
      print *, 'setcontext old', old
      call pvmfsetcontext(ctx, old)
      call pvmffreecontext(ctx2, info)
      print *, 'freecontext', info
c     (Debian's pvmffreecontext calls pvm_setcontext: back to the base context either way)
      call pvmfsetcontext(ctx, old)
c     message boxes
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfpack(INTEGER4, 4711, 1, 1, info)
      call pvmfputinfo('fcheck-box', bufid, PVMMBOXDEFAULT, index)
      print *, 'putinfo', index
      call pvmfrecvinfo('fcheck-box', index, PVMMBOXDEFAULT, b2)
      call pvmfsetrbuf(b2, b3)
      call pvmfunpack(INTEGER4, val, 1, 1, info)
      print *, 'recvinfo', (b2 .gt. 0), val, info
      ncls = -1
      call pvmfgetmboxinfo('fcheck*', name, ncls, nent, idx, own, flg,
     &     info)
      print *, 'getmboxinfo', ncls, trim(name), nent, idx(1),
     &     (own(1) .eq. mytid), flg(1), info
      call pvmfdelinfo('fcheck-box', index, PVMMBOXDEFAULT, info)
      print *, 'delinfo', info
      call pvmfrecvinfo('fcheck-box', index, PVMMBOXDEFAULT, b2)
      print *, 'recvinfo deleted', b2
c     a group of two with the child
      call pvmfjoingroup('fcg', inum)
      print *, 'joingroup', inum
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfsend(child, 30, info)
      call pvmfbarrier('fcg', 2, info)
      print *, 'barrier', info
      call pvmfgsize('fcg', sz)
      call pvmfgettid('fcg', inum, tid)
      call pvmfgetinst('fcg', mytid, k)
      print *, 'group', sz, (tid .eq. mytid), (k .eq. inum)
      call pvmfgetinst('fcg', child, k)
      call pvmfgettid('fcg', k, tid)
      print *, 'child in group', (tid .eq. child)
      call pvmfgetinst('fcg-none', mytid, k)
      print *, 'getinst missing', k
      call fill(idata, inum)
      call pvmfreduce(PvmSum, idata, 3, INTEGER4, 20, 'fcg', 0, info)
      call report('sum', idata, inum, info)
      call fill(idata, inum)
      call pvmfreduce(PvmMax, idata, 3, INTEGER4, 21, 'fcg', 0, info)
      call report('max', idata, inum, info)
      call fill(idata, inum)
      call pvmfreduce(PvmMin, idata, 3, INTEGER4, 22, 'fcg', 0, info)
      call report('min', idata, inum, info)
      call fill(idata, inum)
      call pvmfreduce(PvmProduct, idata, 3, INTEGER4, 23, 'fcg', 0,
     &     info)
      call report('product', idata, inum, info)
      call fill(idata, inum)
      call pvmfreduce(xsum, idata, 3, INTEGER4, 24, 'fcg', 0, info)
      call report('user', idata, inum, info)
      do i = 1, 6
         jdata(i) = 0
      end do
      call pvmfscatter(idata, (/ 1, 2, 3, 4, 5, 6 /), 3, INTEGER4, 25,
     &     'fcg', 0, info)
      call pvmfgather(jdata, idata, 3, INTEGER4, 26, 'fcg', 0, info)
      print *, 'scatter gather', idata, jdata, info
      call pvmffreezegroup('fcg', 2, info)
      print *, 'freezegroup', info
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfpack(INTEGER4, 31, 1, 1, info)
      call pvmfbcast('fcg', 27, info)
      print *, 'bcast', info
      call pvmfbarrier('fcg', -1, info)
      call pvmflvgroup('fcg', info)
      print *, 'lvgroup', info
c     the child's exit, announced (it left the group before)
      call pvmfrecv(-1, 99, bufid)
      call pvmfunpack(INTEGER4, tid, 1, 1, info)
      print *, 'exit notified', (tid .eq. child)
      call pvmflvgroup('fcg', info)
      print *, 'lvgroup again', info
c     odds and ends
      call pvmfperror('fcheck pvmfperror ', info)
      print *, 'perror', info
      call pvmftidtohost(mytid, dtid)
      call pvmfhostsync(dtid, sec, usec, dsec, dusec, info)
      print *, 'hostsync', info
      call pvmfsendsig(child, 0, info)
      print *, 'sendsig gone', info
      call pvmfkill(child, info)
      print *, 'kill gone', info
      call pvmfdelmhf(999, info)
      print *, 'delmhf bad', info
      call pvmfaddhost('no.such.host.invalid', info)
      print *, 'addhost missing', info
      call pvmfdelhost('no.such.host.invalid', info)
      print *, 'delhost missing', info
      call pvmfstartpvmd('-n', 0, info)
      print *, 'startpvmd running', info
      call pvmfsleep(0)
      call pvmfexit(info)
      print *, 'exit', info
      end

      subroutine fill(idata, inum)
      integer idata(3), inum
      idata(1) = inum + 2
      idata(2) = -inum
      idata(3) = 3 * inum + 1
      end

      subroutine report(what, idata, inum, info)
      character*(*) what
      integer idata(3), inum, info
      if (inum .eq. 0) print *, 'reduce ', what, idata, info
      end

c     a user reduce operation: x = x + 2 y
      subroutine xsum(datatype, x, y, num, info)
      integer datatype, num, info, x(num), y(num), i
      do i = 1, num
         x(i) = x(i) + 2 * y(i)
      end do
      info = 0
      end

      subroutine child(mytid, ptid)
      include 'fpvm3.h'
      external PvmSum, PvmMax, PvmMin, PvmProduct, xsum
      integer mytid, ptid, info, bufid, inum, idata(3), jdata(6)
      integer i4(3), atid, atag, alen
      integer*2 i2(2)
      integer*8 l8(2)
      real r4(2)
      double precision r8(4)
      complex c8(2)
      double complex c16
      character*16 str
      character*1 b1(3)
      call pvmfrecv(ptid, 5, bufid)
      call pvmfunpack(INTEGER4, i4, 3, 1, info)
      call pvmfunpack(INTEGER2, i2, 2, 1, info)
      call pvmfunpack(INTEGER8, l8, 2, 1, info)
      call pvmfunpack(REAL4, r4, 2, 1, info)
      call pvmfunpack(REAL8, r8, 2, 1, info)
      call pvmfunpack(COMPLEX8, c8, 2, 1, info)
      call pvmfunpack(COMPLEX16, c16, 1, 1, info)
      call pvmfunpack(BYTE1, b1, 3, 1, info)
      str = ' '
      call pvmfunpack(STRING, str, 11, 1, info)
      i4(1) = i4(1) + 1
      i4(2) = i4(2) + 1
      i2(1) = i2(1) + 1
      l8(2) = l8(2) + 1
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfpack(INTEGER4, i4, 3, 1, info)
      call pvmfpack(INTEGER2, i2, 2, 1, info)
      call pvmfpack(INTEGER8, l8, 2, 1, info)
      call pvmfpack(REAL4, r4, 2, 1, info)
      call pvmfpack(REAL8, r8, 2, 1, info)
      call pvmfpack(COMPLEX8, c8, 2, 1, info)
      call pvmfpack(COMPLEX16, c16, 1, 1, info)
      call pvmfpack(BYTE1, b1, 3, 1, info)
      call pvmfpack(STRING, str, 11, 1, info)
      call pvmfsend(ptid, 5, info)
      call pvmfrecv(ptid, 7, bufid)
      call pvmfunpack(INTEGER4, i4, 2, 1, info)
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfpack(INTEGER4, i4, 2, 1, info)
      call pvmfsend(ptid, 7, info)
      call pvmfprecv(ptid, 6, r8, 4, REAL8, atid, atag, alen, info)
      r8(1) = r8(1) * 2
      r8(4) = r8(4) * 2
      call pvmfpsend(ptid, 6, r8, 4, REAL8, info)
c     joins second, so that the master is instance 0
      call pvmfrecv(ptid, 30, bufid)
      call pvmfjoingroup('fcg', inum)
      call pvmfbarrier('fcg', 2, info)
      call fill(idata, inum)
      call pvmfreduce(PvmSum, idata, 3, INTEGER4, 20, 'fcg', 0, info)
      call fill(idata, inum)
      call pvmfreduce(PvmMax, idata, 3, INTEGER4, 21, 'fcg', 0, info)
      call fill(idata, inum)
      call pvmfreduce(PvmMin, idata, 3, INTEGER4, 22, 'fcg', 0, info)
      call fill(idata, inum)
      call pvmfreduce(PvmProduct, idata, 3, INTEGER4, 23, 'fcg', 0,
     &     info)
      call fill(idata, inum)
      call pvmfreduce(xsum, idata, 3, INTEGER4, 24, 'fcg', 0, info)
      call pvmfscatter(idata, jdata, 3, INTEGER4, 25, 'fcg', 0, info)
      idata(1) = idata(1) * 100
      call pvmfgather(jdata, idata, 3, INTEGER4, 26, 'fcg', 0, info)
      call pvmffreezegroup('fcg', 2, info)
      call pvmfrecv(-1, 27, bufid)
      call pvmfbarrier('fcg', -1, info)
      call pvmflvgroup('fcg', info)
      call pvmfexit(info)
      end
