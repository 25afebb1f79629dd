/* A recorder window as the session catches it: a
 * Profiler.consoleProfileFinished notification (single-quoted: dq() it),
 * for test_store_note.c and test_window.c. */
#ifndef CPROF_TEST_NOTE_FIXTURE_H
#define CPROF_TEST_NOTE_FIXTURE_H

static const char NOTE[] =
    "{'method':'Profiler.consoleProfileFinished','params':{'id':'3','location':{'scriptId':'1',"
    "'lineNumber':0,'columnNumber':0},'profile':{'nodes':[{'id':1,'callFrame':{'functionName':"
    "'(root)','scriptId':'0','url':'','lineNumber':-1,'columnNumber':-1},'hitCount':0,'children':"
    "[2]},{'id':2,'callFrame':{'functionName':'a','scriptId':'1','url':'file:///a.js',"
    "'lineNumber':1,'columnNumber':1},'hitCount':2}],'startTime':100,'endTime':140,'samples':[2,2],"
    "'timeDeltas':[10,10]},'title':'cprof-recorder-1-2'}}";

#endif
