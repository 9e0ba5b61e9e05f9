import json,sys,glob,collections
f=sorted(glob.glob('/work/wt/i14/.tmp14/prof/*.cpuprofile'))[0]
p=json.load(open(f))
nodes={n['id']:n for n in p['nodes']}
self=collections.Counter()
dt=p['timeDeltas']; samples=p['samples']
for s,d in zip(samples,dt):
    self[s]+=d
byfn=collections.Counter(); byfile=collections.Counter()
for nid,t in self.items():
    cf=nodes[nid]['callFrame']; url=cf['url'].split('/node_modules/')[0] if 'node_modules' in cf['url'] else cf['url'].replace('file:///work/wt/i14/','')
    byfn[(cf['functionName'],url,cf['lineNumber'])]+=t
    pkg=url.split('/')[0] if 'node_modules' in cf['url'] else url
    if url.startswith('@'): pkg='/'.join(url.split('/')[:2])
    byfile[pkg]+=t
tot=sum(self.values())
print('total ms',tot/1000)
for k,v in byfile.most_common(25): print(f"{v/tot*100:5.1f}% {k}")
print('---')
for k,v in byfn.most_common(30): print(f"{v/tot*100:5.1f}% {k}")
