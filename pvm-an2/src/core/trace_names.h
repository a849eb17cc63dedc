/* The names of PVM 3.4's trace events and data ids, as Debian's libpvm3 and its tracer spell
 * them: one X-macro list each, expanded by the core (descriptors, summaries) and by the
 * drop-in's exported tables (pvmtevinfo, pvmtevdidlist). Indexed by <pvmtev.h>'s constants. */
#ifndef LPVM_TRACE_NAMES_H
#define LPVM_TRACE_NAMES_H

#define TRC_EVENT_NAMES(X) \
	X(addhosts) X(barrier) X(bcast) X(bufinfo) X(config) X(delete) X(delhosts) X(exit) \
	X(freebuf) X(getfds) X(getinst) X(getopt) X(getrbuf) X(getsbuf) X(gettid) X(gsize) \
	X(halt) X(initsend) X(insert) X(joingroup) X(kill) X(lookup) X(lvgroup) X(mcast) \
	X(mkbuf) X(mstat) X(mytid) X(notify) X(nrecv) X(parent) X(perror) X(pkbyte) X(pkcplx) \
	X(pkdcplx) X(pkdouble) X(pkfloat) X(pkint) X(pkuint) X(pklong) X(pkulong) X(pkshort) \
	X(pkushort) X(pkstr) X(probe) X(pstat) X(recv) X(recvf) X(send) X(sendsig) X(setopt) \
	X(setrbuf) X(setsbuf) X(spawn) X(start_pvmd) X(tasks) X(tickle) X(tidtohost) X(trecv) \
	X(upkbyte) X(upkcplx) X(upkdcplx) X(upkdouble) X(upkfloat) X(upkint) X(upkuint) \
	X(upklong) X(upkulong) X(upkshort) X(upkushort) X(upkstr) X(version) X(reg_hoster) \
	X(reg_rm) X(reg_tasker) X(reg_tracer) X(newtask) X(endtask) X(spntask) X(archcode) \
	X(catchout) X(getmwid) X(gettmask) X(hostsync) X(packf) X(precv) X(psend) X(reduce) \
	X(setmwid) X(settmask) X(unpackf) X(gather) X(scatter) X(putinfo) X(getinfo) X(delinfo) \
	X(getmboxinfo) X(newcontext) X(freecontext) X(setcontext) X(getcontext) X(siblings) \
	X(getminfo) X(setminfo) X(addmhf) X(delmhf) X(mhf_invoke) X(timing) X(profiling) \
	X(user_defined)

/* id, then what it means */
#define TRC_DATA_IDS(X) \
	X(AN, "PVM Architecture Name") X(AC, "PVM Architecture Code") \
	X(AS, "Argument Strings (Argc/Argv)") X(BF, "Block Flag") X(CC, "Condition Code") \
	X(CN, "Class Name") X(CI, "Class Index") X(CF, "Class Flags") X(CD, "Class Data") \
	X(CR, "Returned Class Data") X(CL, "Returned Class Names") \
	X(CDA, "Collective Data Address") X(CDT, "Collective Data Type") \
	X(CDX, "Collective Data") X(CDC, "Collective Count") \
	X(CGI, "Collective Group Result Instance") X(CRF, "Collective Reduce Function") \
	X(CXC, "Current Message Context") X(CXF, "Freed Message Context") \
	X(CXN, "New Message Context") X(CXS, "Set Message Context") \
	X(ERI, "PVM Error Identifier") X(ERR, "PVM Error String") X(FDS, "File Descriptors") \
	X(FP, "File Pointer") X(GN, "Group Name") X(GI, "Group Instance Number") \
	X(GT, "Group Task ID") X(GS, "Group Size") X(GBC, "Group Barrier Count") \
	X(HN, "Host Name") X(HNL, "Host Name List") X(HNA, "Host Name Alias") \
	X(HPT, "Host PVMD Task ID") X(HA, "Host Architecture") X(HSP, "Host Speed") \
	X(HIS, "Host Information Structures") X(HCS, "Host Clock Seconds") \
	X(HCU, "Host Clock Microseconds") X(HDS, "Host Delta Seconds") \
	X(HDU, "Host Delta Microseconds") X(HS, "Host Status") \
	X(INB, "Info Number of Message Bytes") X(IMC, "Info Message Code") \
	X(IST, "Info Message Source Task") X(MC, "Message Code") X(MCX, "Message Context") \
	X(MB, "Message Buffer") X(MNB, "Message Number of Bytes") \
	X(SRC, "Message Source Task ID") X(DST, "Message Destination Task ID") \
	X(MDL, "Message Destination Task ID List") X(MTS, "Message Timeout Seconds") \
	X(MTU, "Message Timeout Microseconds") X(MRF, "Message Receive Function") \
	X(MRB, "Message Receive Buffer") X(MSB, "Message Send Buffer") \
	X(ME, "Message Encoding") X(MHI, "Message Handler Index") \
	X(AST, "Actual Message Sender Task ID") X(AMC, "Actual Message Code") \
	X(AML, "Actual Message Length") X(NE, "Notify Event ID") \
	X(NMC, "Notify Message Code") X(NCT, "Notify Count") X(NTL, "Notify Task ID List") \
	X(NH, "Number of Hosts") X(NA, "Number of Architectures") X(OPT, "PVM Option ID") \
	X(OPV, "PVM Option Value") X(OS, "Output String") X(PDA, "Pack Data Address") \
	X(PDT, "Pack Data Type") X(PC, "Pack Count") X(PSD, "Pack Stride") \
	X(PSG, "Pack String") X(PF, "Pack Format") X(PRF, "Profiling Count") \
	X(RST, "Receive Msg Source Task / Wildcard") X(RMC, "Receive Msg Code / Wildcard") \
	X(RCX, "Receive Msg Context") X(SN, "Signal Number") X(SE, "Spawn Executable File") \
	X(SF, "Spawn Flags") X(SW, "Spawn Where") X(SC, "Spawn Count") \
	X(STL, "Spawned Task ID List") X(SIB, "Sibling Task ID List") X(TID, "Task ID") \
	X(PT, "Parent Task ID") X(MT, "My Task ID") X(TF, "Task Flags") X(TN, "Task Name") \
	X(PID, "Task Process ID") X(TT, "Target Task ID") X(TW, "Tasks Where") \
	X(TIS, "Task Information Structures") X(TNT, "Task Info - Number of Tasks") \
	X(TST, "Task Status") X(TUS, "Task User Usage Seconds") \
	X(TUU, "Task User Usage Microseconds") X(TSS, "Task System Usage Seconds") \
	X(TSU, "Task System Usage Microseconds") X(TES, "Task Exit Status") \
	X(TA, "Tickle Arguments") X(TR, "Tickle Responses") X(TS, "Time Seconds") \
	X(TU, "Time Microseconds") X(TGS, "Timing Seconds") X(TGU, "Timing Microseconds") \
	X(TMW, "Trace Mask Who") X(TM, "Trace Mask") X(TRC, "Tracer Message Trace Context") \
	X(TRT, "Tracer Message Trace Tag") X(TRX, "Tracer Message Output Context") \
	X(TRO, "Tracer Message Output Tag") X(TRM, "Tracer Trace Mask") \
	X(TRB, "Tracer Trace Buffering") X(TRL, "Tracer Trace Options") X(VER, "PVM Version") \
	X(VCT, "Trace Event Count") X(VID, "Trace Event ID") X(WID, "Wait Identifier Number")

#endif
