#!/usr/bin/env python3
"""Summarises the oracle runs (output of run_oracle.sh) and checks every printed KV size against the
rule: cells as printed must equal n_ctx_seq (base cache) or GGML_PAD(min(n_ctx_seq, n_swa + n_ubatch), 256)
(SWA cache, or n_ctx_seq with --swa-full); K bytes = sum over the cache's layers of
row_size(type_k, n_embd_k_gqa(il)) * cells * n_stream; V the same with n_embd_v_gqa(il), or with the
widest layer's n_embd_v_gqa when flash attention is "disabled" (V stored transposed), and 0 for MLA.
The per-model layer widths below restate the metadata written by make_models.py.
Also derives the exact compute buffer = (llama_context::memory_breakdown context+compute bytes) - memory bytes.
Usage: python3 summarize.py oracle-runs.txt
"""
import re,sys
txt=open(sys.argv[1]).read()
M={ # per-layer k widths, v widths, swa flags, window
 'llama-gqa':dict(k=[32]*4,v=[32]*4,swa=[0]*4,w=0),
 'qwen2':dict(k=[32]*2,v=[32]*2,swa=[0]*2,w=0),
 'gemma2-swa':dict(k=[64]*4,v=[64]*4,swa=[1,0,1,0],w=256),
 'gemma3-swa':dict(k=[64]*7,v=[64]*7,swa=[1,1,1,1,1,0,1],w=512),
 'deepseek2-mla':dict(k=[96]*2,v=[0]*2,swa=[0]*2,w=0,mla=1),
 'deci-perlayer-kv':dict(k=[64,128,32,64],v=[64,128,32,64],swa=[0]*4,w=0),
 'deci-kv0':dict(k=[64,0,128,32],v=[64,0,128,32],swa=[0]*4,w=0),
}
def row(t,n): return n*2 if t=='f16' else (n//32)*34
pad=lambda x,p=256: (x+p-1)//p*p
for blk in txt.split('\n$ ')[1:]:
    if "models/" not in blk.split("\n")[0]: continue
    cmd=blk.split('\n')[0]; m=re.search(r'models/(\S+)\.gguf',cmd).group(1)
    g=lambda pat: (re.search(pat,blk) or [None,None])[1]
    nctx=g(r'n_ctx +=\s+(\d+)'); nseq_ctx=g(r'n_ctx_seq +=\s+(\d+)'); ub=g(r'n_ubatch +=\s+(\d+)'); fa=g(r'flash_attn +=\s+(\S+)')
    comp=g(r'compute buffer size =\s+([\d.]+)'); outb=g(r'output buffer size =\s+([\d.]+)')
    ex=g(r'KV/RS memory \+ compute\) cpuRam=(\d+)'); mb=g(r'model memory_breakdown cpuRam=(\d+)')
    caches=re.findall(r'llama_kv_cache: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+)/(\d+) seqs\), K \((\w+)\):\s+([\d.]+) MiB, V \((\w+)\):\s+([\d.]+) MiB',blk)
    rs=re.findall(r'llama_memory_recurrent: size =.*',blk)
    print(f"{m:17s} {cmd.split('.gguf')[1]:38s} n_ctx={nctx} seq_ctx={nseq_ctx} ub={ub} fa={fa} out={outb} comp={comp} mem+comp={ex} model={mb}")
    if 'EXCEPTION' in blk: print('   EXCEPTION', g(r'(llama_init_from_model: .*)'))
    membytes=0
    if m=='mamba' and rs:
        ns=int(re.search(r'\(\s*(\d+) cells',rs[0]).group(1)); membytes=(3*128+16*128)*4*2*ns
        print(f"   recurrent: cells={ns}; rule R={3*128*4*2*ns} B, S={16*128*4*2*ns} B")
    if m in M and caches:
        d=M[m]; iswa=len(caches)==2
        for ci,(tot,cells,nl,ns,nst,kt,km,vt,vm) in enumerate(caches):
            cells=int(cells); nst=int(nst)
            if iswa: layers=[i for i in range(len(d['k'])) if d['swa'][i]==(ci==1)]
            else: layers=list(range(len(d['k'])))
            vt_trans = fa=='disabled'
            vmax=max(d['v'])
            kb=sum(row(kt,d['k'][i]) for i in layers)*cells*nst
            vb=0 if d.get('mla') else sum(row(vt,(vmax if vt_trans else d['v'][i])) for i in layers)*cells*nst
            pk=f"{kb/2**20:.2f}"; pv=f"{vb/2**20:.2f}"
            ok = (pk==km and pv==vm)
            # predicted cells
            sc=int(nseq_ctx); 
            pc = sc if ci==0 else (sc if 'swa-full' in cmd else pad(min(sc, d['w']+int(ub))))
            membytes+=kb+vb
            print(f"   cache{ci}: cells={cells} (rule {pc}) layers={nl} streams={nst} K {kt} {km} MiB (rule {kb} B={pk}) V {vt} {vm} MiB (rule {vb} B={pv}) {'OK' if ok and pc==cells else 'MISMATCH'}")
    if ex: print(f"   derived exact compute buffer = mem+comp - memory = {int(ex)-membytes} B ({(int(ex)-membytes)/2**20:.2f} MiB, printed {comp})")
