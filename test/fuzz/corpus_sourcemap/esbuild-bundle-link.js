function r(t){let e=0;for(let o=0;o<t;o++)e+=Math.sqrt(o)*Math.sin(o);return e}function n(){let t=0,e=Date.now()+1500;for(;Date.now()<e;)t+=r(2e4);return t}module.exports={outerCaller:n};require.main===module&&console.log(n());
//# sourceMappingURL=out.js.map
