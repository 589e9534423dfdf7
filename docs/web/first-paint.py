#!/usr/bin/env python3
"""First contentful paint of the page's home view, for one or more lore binaries side by
side: each serves the same data dir (a store of FOLDER, keyword only) in turn, and headless
Chromium, driven through chromedriver, loads `/` six times; the first load is dropped and
the medians printed. Two rounds alternate the binaries.

  docs/web/first-paint.py FOLDER LABEL=path/to/lore [LABEL=path/to/lore …]
"""
import json, subprocess, sys, time, urllib.request, socket, tempfile, os, statistics
def free():
    s=socket.socket(); s.bind(("127.0.0.1",0)); p=s.getsockname()[1]; s.close(); return p
def req(m,u,b=None):
    r=urllib.request.Request(u,method=m,data=None if b is None else json.dumps(b).encode(),headers={"content-type":"application/json"})
    return json.load(urllib.request.urlopen(r))
out={}
folder=sys.argv[1]
bins=[a.split("=",1) for a in sys.argv[2:]]
data=tempfile.mkdtemp()
subprocess.run([bins[-1][1],"--data-dir",data,"store","add","demo",folder,"--embed","none"],capture_output=True,check=True)
for label,binary in bins*2:
    port=free()
    srv=subprocess.Popen([binary,"--data-dir",data,"serve","--addr",f"127.0.0.1:{port}","--no-watch"],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    dport=free()
    drv=subprocess.Popen(["chromedriver",f"--port={dport}"],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
    time.sleep(1)
    base=f"http://127.0.0.1:{dport}"
    prof=tempfile.mkdtemp()
    s=req("POST",base+"/session",{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"args":["--headless","--no-sandbox","--disable-gpu","--window-size=1400,900",f"--user-data-dir={prof}"]}}}})["value"]["sessionId"]
    fcps=[]
    for url in [f"http://127.0.0.1:{port}/"]*6:
        req("POST",f"{base}/session/{s}/url",{"url":url})
        time.sleep(0.5)
        v=req("POST",f"{base}/session/{s}/execute/sync",{"script":"const p=performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null;","args":[]})["value"]
        fcps.append(v)
    req("DELETE",f"{base}/session/{s}")
    drv.kill(); srv.kill()
    out.setdefault(label,[]).extend(fcps[1:])
for k,v in out.items():
    print(k, "median first-contentful-paint ms", round(statistics.median([x for x in v if x is not None]),1), "n", len(v), [round(x,1) for x in v if x])
