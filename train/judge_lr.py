# judge_lr.py: issue 35 item 5's experiment — a learned contradiction
# classifier against the hand rules of engine/memory/contradict. Logistic
# regression (pure Python, SGD, L2) over hashed features of a pair: words on one
# side only, every (only-in-a, only-in-b) word pair (so antonyms can be learned),
# content-word overlap, a negator on one side only, numbers that differ.
# Trained on every labelled pair except the test halves of pairs_heldout2..5;
# the threshold is chosen by 5-fold cross-validation on the training pairs
# (the lowest giving precision >= 0.85); the test halves are then scored once.
# Result (2026-12-07, testdata/memory/README.md "A learned classifier"): not kept.
#
#   python3 train/judge_lr.py
import json, re, math, random, hashlib, os
D=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata', 'memory', '')
def load(f):
    return [json.loads(l) for l in open(D+f) if l.strip()]
train, tests = [], {}
for f in ['pairs.jsonl','holdout.jsonl','pairs_dev2.jsonl','pairs_dev3.jsonl']:
    train += load(f)
for f in ['pairs_heldout2.jsonl','pairs_heldout3.jsonl','pairs_heldout4.jsonl','pairs_heldout5.jsonl']:
    for p in load(f):
        if p.get('split')=='test': tests.setdefault(f,[]).append(p)
        else: train.append(p)
STOP=set("the a an of to in for on at by is are was were be been it its this that with as and or from we our us".split())
NEG=set("not no never don't doesn't isn't aren't won't can't cannot without nothing none off disabled removed dropped stopped".split())
def toks(s):
    return [w for w in re.findall(r"[a-z0-9][a-z0-9'._/-]*", s.lower())]
def stem(w):
    for suf in ('ing','ed','es','s'):
        if len(w)>4 and w.endswith(suf): return w[:-len(suf)]
    return w
def feats(p):
    a=[stem(w) for w in toks(p['a'])]; b=[stem(w) for w in toks(p['b'])]
    A=set(w for w in a if w not in STOP); B=set(w for w in b if w not in STOP)
    onlyA, onlyB = A-B, B-A
    f={}
    inter=len(A&B); uni=len(A|B) or 1
    f['jac']=inter/uni
    f['jac2']=(inter/uni)**2
    na=sum(1 for w in toks(p['a']) if w in NEG or w.endswith("n't")); nb=sum(1 for w in toks(p['b']) if w in NEG or w.endswith("n't"))
    f['negdiff']=abs(na-nb)>0
    numa=set(re.findall(r'\d+(?:\.\d+)?',p['a'])); numb=set(re.findall(r'\d+(?:\.\d+)?',p['b']))
    f['numdiff']= bool(numa and numb and numa!=numb)
    f['numone']= bool((numa and not numb) or (numb and not numa))
    for x in onlyA|onlyB: f['one:'+x]=1
    for x in onlyA:
        for y in onlyB:
            k=tuple(sorted((x,y))); f['pair:%s|%s'%k]=1
    f['bias']=1
    return f
H=1<<18
def vec(f):
    return [(int(hashlib.md5(k.encode()).hexdigest()[:8],16)%H, float(v)) for k,v in f.items() if v]
def train_lr(data, epochs=30, lr=0.1, l2=1e-4):
    w=[0.0]*H
    X=[(vec(feats(p)), 1.0 if p['conflict'] else 0.0) for p in data]
    rnd=random.Random(1)
    for ep in range(epochs):
        rnd.shuffle(X)
        for x,y in X:
            z=sum(w[i]*v for i,v in x); z=max(-30,min(30,z))
            g=1/(1+math.exp(-z))-y
            for i,v in x: w[i]-=lr*(g*v+l2*w[i])
    return w
def score(w,p):
    z=sum(w[i]*v for i,v in vec(feats(p))); z=max(-30,min(30,z)); return 1/(1+math.exp(-z))
def pr(w,data,th):
    tp=fp=fn=0
    for p in data:
        c=score(w,p)>=th
        if c and p['conflict']: tp+=1
        elif c: fp+=1
        elif p['conflict']: fn+=1
    return tp/max(tp+fp,1), tp/max(tp+fn,1)
print('--- CV on train only')
rnd=random.Random(7); idx=list(range(len(train))); rnd.shuffle(idx)
folds=[idx[i::5] for i in range(5)]
scores=[]
for k in range(5):
    tr=[train[i] for j in range(5) if j!=k for i in folds[j]]
    wk=train_lr(tr)
    scores += [(score(wk,train[i]), train[i]['conflict']) for i in folds[k]]
for th in [x/20 for x in range(8,20)]:
    tp=sum(1 for s,c in scores if s>=th and c); fp=sum(1 for s,c in scores if s>=th and not c); fn=sum(1 for s,c in scores if s<th and c)
    print('cv th %.2f P %.3f R %.3f'%(th, tp/max(tp+fp,1), tp/max(tp+fn,1)))
w=train_lr(train)
print('--- blind test halves at the threshold CV chose (precision >= 0.85 in CV: 0.90)')
allp=[]
for k,v in sorted(tests.items()):
    print(k, 'P %.3f R %.3f n %d'%(*pr(w,v,0.90), len(v))); allp+=v
print('pooled', 'P %.3f R %.3f n %d'%(*pr(w,allp,0.90), len(allp)))
